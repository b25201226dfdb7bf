/**
 * Client-side month calendars for the sites with a custom date picker: a grid
 * of day buttons, each named by its full date, with previous/next month
 * buttons. The chosen ISO date goes to a hidden input. Two looks (popover
 * under a button, or inline panel), both written the way real sites write them.
 */
import { raw, type SafeHtml } from '../engine/html.ts';

export interface CalendarOpts {
  /** id of the hidden input receiving YYYY-MM-DD */
  input: string;
  /** id of the container the grid is drawn in */
  container: string;
  /** id of an element whose text shows the chosen date, or '' */
  display: string;
  /** 'en-US' names days "Saturday, June 1, 2030"; 'en-GB' "Saturday, 1 June 2030" */
  locale: 'en-US' | 'en-GB';
  /** day cells as <button> in a table with role=grid (true) or as buttons in a list (false) */
  grid: boolean;
  /** close the popover (container's parent) once a day is picked */
  closeOnPick: boolean;
}

export function calendarScript(o: CalendarOpts): SafeHtml {
  return raw(`<script>(function(){
var o=${JSON.stringify(o)};
var input=document.getElementById(o.input), box=document.getElementById(o.container);
var today=new Date(); today=new Date(Date.UTC(today.getFullYear(),today.getMonth(),today.getDate()));
var start=input.value?new Date(input.value+'T00:00:00Z'):today; var y=start.getUTCFullYear(), m=start.getUTCMonth();
function iso(d){return d.toISOString().slice(0,10);}
function name(d){return d.toLocaleDateString(o.locale,{weekday:'long',year:'numeric',month:'long',day:'numeric',timeZone:'UTC'});}
function draw(){
  var first=new Date(Date.UTC(y,m,1)); var title=first.toLocaleDateString(o.locale,{month:'long',year:'numeric',timeZone:'UTC'});
  var h='<div class="cal-head"><button type="button" class="cal-prev" aria-label="Previous month">&#8249;</button><span class="cal-title" aria-live="polite">'+title+'</span><button type="button" class="cal-next" aria-label="Next month">&#8250;</button></div>';
  var days=new Date(Date.UTC(y,m+1,0)).getUTCDate(); var lead=(first.getUTCDay()+6)%7;
  if(o.grid){
    h+='<table role="grid" aria-label="'+title+'"><thead><tr>'+['Mo','Tu','We','Th','Fr','Sa','Su'].map(function(d){return '<th scope="col">'+d+'</th>';}).join('')+'</tr></thead><tbody><tr>';
    for(var i=0;i<lead;i++) h+='<td></td>';
    for(var d=1;d<=days;d++){var dt=new Date(Date.UTC(y,m,d)); var past=dt<today; var sel=input.value===iso(dt);
      h+='<td role="gridcell"'+(sel?' aria-selected="true"':'')+'><button type="button" class="cal-day" data-date="'+iso(dt)+'" aria-label="'+name(dt)+'"'+(past?' disabled':'')+(sel?' aria-pressed="true"':'')+'>'+d+'</button></td>';
      if((lead+d)%7===0&&d<days) h+='</tr><tr>';}
    h+='</tr></tbody></table>';
  } else {
    h+='<ul class="cal-days" aria-label="'+title+'">';
    for(var d2=1;d2<=days;d2++){var dt2=new Date(Date.UTC(y,m,d2)); var past2=dt2<today;
      h+='<li><button type="button" class="cal-day" data-date="'+iso(dt2)+'" aria-label="'+name(dt2)+'"'+(past2?' aria-disabled="true" disabled':'')+(input.value===iso(dt2)?' aria-current="date"':'')+'>'+d2+'</button></li>';}
    h+='</ul>';
  }
  box.innerHTML=h;
}
box.addEventListener('click',function(e){var b=e.target.closest('button'); if(!b) return;
  if(b.classList.contains('cal-prev')){m--; if(m<0){m=11;y--;} draw(); return;}
  if(b.classList.contains('cal-next')){m++; if(m>11){m=0;y++;} draw(); return;}
  if(b.dataset.date&&!b.disabled){input.value=b.dataset.date; input.dispatchEvent(new Event('change',{bubbles:true}));
    if(o.display) document.getElementById(o.display).textContent=name(new Date(b.dataset.date+'T00:00:00Z'));
    draw(); if(o.closeOnPick){box.parentElement.hidden=true; var t=document.querySelector('[aria-controls="'+box.parentElement.id+'"]'); if(t){t.setAttribute('aria-expanded','false'); t.focus();}}}
});
draw();
})();</script>`);
}

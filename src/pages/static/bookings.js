// Bookings page: status changes arrive as server-sent events; each changed booking is re-rendered
// by the server (the fragment is the same template as the page) and swapped in place.
(function () {
  'use strict';
  var list = document.querySelector('[data-bookings]');
  var note = document.querySelector('[data-bookings-live]');
  if (!list || !window.EventSource) return;

  function refresh(jobId) {
    fetch('/bookings/' + encodeURIComponent(jobId) + '/item', { credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var template = document.createElement('template');
        template.innerHTML = html.trim();
        var fresh = template.content.firstElementChild;
        if (!fresh) return;
        var current = list.querySelector('li[data-job-id="' + CSS.escape(jobId) + '"]');
        if (current) {
          // Keep the reader's open/closed sections as they were (new sections keep their default).
          Array.prototype.forEach.call(current.querySelectorAll('details[data-section]'), function (d) {
            var same = fresh.querySelector('details[data-section="' + d.getAttribute('data-section') + '"]');
            if (same) same.open = d.open;
          });
          current.replaceWith(fresh);
        } else {
          list.prepend(fresh);
          var empty = document.querySelector('[data-bookings-empty]');
          if (empty) empty.remove();
        }
      })
      .catch(function () { /* the next event retries */ });
  }

  var source = new EventSource('/bookings/events');
  source.addEventListener('open', function () { document.body.setAttribute('data-live', 'on'); });
  source.addEventListener('error', function () { document.body.setAttribute('data-live', 'off'); });
  source.addEventListener('booking', function (event) {
    var data;
    try { data = JSON.parse(event.data); } catch (_) { return; }
    if (data && typeof data.jobId === 'string') refresh(data.jobId);
  });
  if (note) note.hidden = false;
})();

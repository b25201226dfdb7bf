// Handoff page behaviour: the hold countdown, the live view's state in words, and the outcome
// (confirmation code, cancellation, expiry) as the server reports it over the live view's socket.
(function () {
  'use strict';

  var countdown = document.querySelector('[data-countdown]');
  var hold = document.querySelector('[data-hold]');
  var live = document.querySelector('[data-live-view]');
  var stateText = document.querySelector('[data-live-state-text]');
  var outcome = document.querySelector('[data-outcome]');
  var cancel = document.querySelector('[data-cancel]');
  var instructions = document.querySelector('[data-instructions]');
  var finished = false;

  function two(n) { return (n < 10 ? '0' : '') + n; }

  if (countdown) {
    var expiresAt = Date.parse(countdown.getAttribute('data-expires-at'));
    var tick = function () {
      var left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
      countdown.textContent = Math.floor(left / 60) + ':' + two(left % 60);
      if (left <= 60 && hold) hold.classList.add('urgent');
      if (left === 0 || finished) return;
      setTimeout(tick, 1000 - (Date.now() % 1000));
    };
    tick();
  }

  function show(kind, title, code, text) {
    outcome.textContent = '';
    outcome.className = 'outcome ' + kind;
    var strong = document.createElement('strong');
    strong.textContent = title;
    outcome.appendChild(strong);
    if (code) {
      var p = document.createElement('p');
      p.className = 'code';
      p.setAttribute('data-confirmation-code', code);
      p.textContent = code;
      outcome.appendChild(p);
    }
    if (text) {
      var more = document.createElement('p');
      more.textContent = text;
      outcome.appendChild(more);
    }
  }

  function finish() {
    finished = true;
    if (cancel) cancel.hidden = true;
    if (hold) hold.hidden = true;
    if (instructions) instructions.hidden = true;
    if (live) live.setAttribute('data-finished', '');
  }

  if (!live) return;
  live.addEventListener('liveview:state', function (event) {
    if (!stateText) return;
    var words = { connecting: 'Connecting to the provider\u2019s page\u2026', lost: 'Connection lost \u2014 reconnecting\u2026', ended: 'The live view has ended.' };
    if (words[event.detail]) stateText.textContent = words[event.detail];
  });
  live.addEventListener('liveview:message', function (event) {
    var m = event.detail || {};
    if (m.t !== 'status') return;
    if (m.status === 'paused_payment') {
      // Watching a run that has just stopped at the card step (the handoff page itself stays as is).
      if (live.getAttribute('data-mode') === 'watch') show('ok', m.words || 'Waiting for the payment', '', 'The booking is held and waits for the payment.');
      return;
    }
    if (m.status === 'completed') {
      finish();
      show('ok', 'Booked. Your confirmation code:', m.confirmationCode || '', 'The provider confirmed your booking.');
      document.title = 'Booked \u00b7 Concierge';
    } else {
      finish();
      show('bad', m.words || 'This booking has ended.', '', m.message || '');
    }
  });
})();

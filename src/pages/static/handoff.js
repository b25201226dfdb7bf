// Handoff page behaviour: the hold countdown, the live view's state in words, and the outcome
// (confirmation code, cancellation, expiry) as the server reports it over the live view's socket,
// or, when the socket closed without saying, as the page's status URL reports it.
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
  var watchingLate = false; // the ending shown may still turn into the provider's confirmation
  var takenOver = false; // another screen opened this payment page and has the provider's page now

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
    if (live) {
      live.setAttribute('data-finished', '');
      // The outcome is known: the live view has nothing more to show and stops reconnecting.
      live.dispatchEvent(new CustomEvent('liveview:stop'));
    }
  }

  // Only one screen at a time uses the provider's page: this one is told when another takes over,
  // says so plainly, and offers to take it back (a reload reconnects, and the other screen is told).
  function showTakenOver() {
    takenOver = true;
    show('wait', 'This payment page was opened on another screen.', '', 'Only one screen at a time can use the provider\u2019s page. To continue on this screen, take it back.');
    var again = document.createElement('button');
    again.type = 'button';
    again.setAttribute('data-take-back', '');
    again.textContent = 'Use this screen';
    again.addEventListener('click', function () { window.location.reload(); });
    outcome.appendChild(again);
    if (instructions) instructions.hidden = true;
    if (stateText) stateText.textContent = 'Showing on another screen.';
    if (live) live.setAttribute('data-taken-over', '');
  }

  // The job's status message from a status URL: null when the link refuses it (a 4xx), undefined
  // when no answer could be had (offline, a server failure, a garbled body): ask again later.
  function getStatus(url) {
    return fetch(url, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : r.status >= 500 ? undefined : null; })
      .catch(function () { return undefined; });
  }

  // An ending recorded by a process that could not see a payment in flight may still become the
  // booking, if the provider confirms it (the status then says `confirmationMayFollow`). The page
  // asks `url` again every 5 s while it is on screen, and at once when it comes back into view,
  // until the status says nothing more can come; each answer goes to `onStatus`.
  function watchForConfirmation(url, onStatus) {
    var timer = null;
    var pending = false;
    var more = true;
    var check = function () {
      timer = null;
      if (!more || pending || document.visibilityState !== 'visible') return;
      pending = true;
      getStatus(url)
        .then(function (m) {
          if (m === undefined) return; // no answer this time: ask again
          if (!m || m.status !== 'error' || m.confirmationMayFollow !== true) more = false;
          onStatus(m);
        })
        .then(function () {
          pending = false;
          if (more && !timer) timer = setTimeout(check, 5000);
        });
    };
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'visible' && more && !timer) check();
    });
    timer = setTimeout(check, 5000);
  }

  function report(m) {
    if (m && m.t === 'ended' && m.reason === 'taken_over' && !finished) return showTakenOver();
    if (!m || m.t !== 'status') return;
    // Only the provider's late confirmation changes an ending already shown.
    if (finished && !(watchingLate && m.status === 'completed')) return;
    if (m.status === 'paused_payment') {
      // `open: false` comes from the status URL: paused, but past its hold. Not the end: the holder
      // is recording the expiry, or waiting for the provider's answer to a payment in flight.
      if (m.open === false) {
        show('wait', m.words || 'Hold ending', '', m.message || '');
        setTimeout(function () { ask(); }, 2000);
        return;
      }
      // Watching a run that has just stopped at the card step (the handoff page itself stays as is).
      if (live.getAttribute('data-mode') === 'watch') show('ok', m.words || 'Waiting for the payment', '', 'The booking is held and waits for the payment.');
      return;
    }
    finish();
    if (m.status === 'completed') {
      show('ok', 'Booked. Your confirmation code:', m.confirmationCode || '', 'The provider confirmed your booking.');
      document.title = 'Booked \u00b7 Concierge';
    } else {
      show('bad', m.words || 'This booking has ended.', '', m.message || '');
      if (m.confirmationMayFollow === true && statusUrl && !watchingLate) {
        watchingLate = true;
        watchForConfirmation(statusUrl, report);
      }
    }
  }

  if (!live) {
    // The outcome page (no live view; also what a Cancel answers): if the provider confirms after
    // all, the payment link opened afresh shows the code.
    var awaiting = outcome && outcome.getAttribute('data-await-confirmation');
    if (awaiting) {
      watchForConfirmation(awaiting, function (m) {
        if (m && m.status === 'completed') window.location.assign(awaiting.replace(/\/status$/, ''));
      });
    }
    return;
  }
  var statusUrl = live.getAttribute('data-status');
  var asking = false;

  // The socket closed without the outcome (a phone that locked mid-payment, a dropped connection):
  // the server says what became of the booking, so the page ends with it, not with a dead view.
  function ask(onOpen) {
    if (!statusUrl || finished || asking) return;
    asking = true;
    getStatus(statusUrl)
      .then(function (m) {
        // No answer (m undefined): the next close or wake-up asks again.
        report(m);
        if (m && m.t === 'status' && m.open && onOpen) onOpen();
      })
      .then(function () { asking = false; });
  }

  live.addEventListener('liveview:state', function (event) {
    if (takenOver) return;
    if (stateText) {
      var words = { connecting: 'Connecting to the provider\u2019s page\u2026', lost: 'Connection lost \u2014 reconnecting\u2026', ended: 'The live view has ended.' };
      if (words[event.detail]) stateText.textContent = words[event.detail];
    }
    if (event.detail === 'lost' || event.detail === 'ended') ask();
  });
  live.addEventListener('liveview:message', function (event) {
    report(event.detail || {});
  });
  // Back from a locked screen or another app: the socket may have died quietly meanwhile. Still
  // payable but the view gave up reconnecting: load the page afresh.
  document.addEventListener('visibilitychange', function () {
    // Taken over by another screen: taking it back is the person's choice, never automatic.
    if (document.visibilityState !== 'visible' || takenOver) return;
    ask(function () {
      if (live.getAttribute('data-state') === 'ended') window.location.reload();
    });
  });
})();

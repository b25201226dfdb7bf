// Live view client: draws the frames of a remote browser tab on a canvas and, in control mode,
// sends the person's taps, clicks and keys back. No framework, no third-party code.
//
// Markup: <div data-live-view data-socket="/path" data-mode="control|watch">
//           <canvas></canvas> <input data-live-keys> <button data-live-keyboard> </div>
// Events dispatched on the container: `liveview:message` (detail = JSON from the server),
// `liveview:state` (detail = 'connecting' | 'live' | 'ended' | 'lost'). Dispatch `liveview:stop` on
// it to end the view for good (the page learnt the outcome another way).
//
// What the person types goes from the keyboard straight into the socket: it is never kept in a
// variable, written to the page, stored, or logged. The hidden input is emptied on every keystroke.
(function () {
  'use strict';

  var SPECIAL = ['Enter', 'Tab', 'Backspace', 'Delete', 'Escape', 'ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown'];
  var SENTINEL = '\u200b'; // keeps Backspace observable on phone keyboards (an empty input fires nothing)
  var CLOSE_ENDED = 4000;
  var CLOSE_RECONNECT = 4001; // the view moved to another tab: connect again at once

  function modifiers(e) {
    return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  }

  function start(root) {
    var canvas = root.querySelector('canvas');
    var keys = root.querySelector('[data-live-keys]');
    var keyboardButton = root.querySelector('[data-live-keyboard]');
    var ctx = canvas.getContext('2d');
    var control = root.getAttribute('data-mode') === 'control';
    var frame = { width: 0, height: 0 };
    var socket = null;
    var ended = false;
    var retries = 0;
    var pending = null; // latest undecoded frame; older ones are skipped
    var decoding = false;
    // This page load, as the server knows it: a reconnect after a dropped connection is this screen
    // again, never a new one (a screen taken over meanwhile is told so, and does not take the tab
    // back by itself). A reload is a new screen.
    var screenId = Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(16)), function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');

    function state(name) {
      root.setAttribute('data-state', name);
      root.dispatchEvent(new CustomEvent('liveview:state', { detail: name }));
    }

    function send(message) {
      if (socket && socket.readyState === 1) socket.send(JSON.stringify(message));
    }

    function screen() {
      var rect = root.getBoundingClientRect();
      var height = Math.max(320, Math.floor(window.innerHeight - Math.max(0, rect.top) - 16));
      return { t: 'screen', width: Math.floor(rect.width), height: height, pixelRatio: window.devicePixelRatio || 1 };
    }

    function draw() {
      if (decoding || !pending) return;
      var next = pending;
      pending = null;
      decoding = true;
      createImageBitmap(new Blob([next.jpeg], { type: 'image/jpeg' })).then(function (bitmap) {
        if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
          canvas.width = bitmap.width;
          canvas.height = bitmap.height;
        }
        ctx.drawImage(bitmap, 0, 0);
        bitmap.close();
        frame.width = next.width;
        frame.height = next.height;
        root.setAttribute('data-frame-size', next.width + 'x' + next.height);
        // A frame decoded after the view ended (its socket told it so) does not bring it back to life.
        if (!ended && root.getAttribute('data-state') !== 'live') state('live');
      }, function () { /* a corrupt frame: wait for the next */ }).then(function () {
        decoding = false;
        draw();
      });
    }

    function connect() {
      if (ended) return;
      state('connecting');
      var url = new URL(root.getAttribute('data-socket'), window.location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      if (control) url.searchParams.set('screen', screenId);
      socket = new WebSocket(url.href);
      socket.binaryType = 'arraybuffer';
      socket.onopen = function () {
        retries = 0;
        send(screen());
      };
      socket.onmessage = function (event) {
        if (typeof event.data === 'string') {
          var message;
          try { message = JSON.parse(event.data); } catch (_) { return; }
          if (message.t === 'ended') ended = true;
          root.dispatchEvent(new CustomEvent('liveview:message', { detail: message }));
          return;
        }
        var view = new DataView(event.data);
        pending = { width: view.getUint16(0), height: view.getUint16(2), jpeg: new Uint8Array(event.data, 4) };
        draw();
      };
      socket.onclose = function (event) {
        socket = null;
        if (ended || event.code === CLOSE_ENDED || event.code === 1008) {
          ended = true;
          state('ended');
          return;
        }
        if (event.code === CLOSE_RECONNECT) {
          setTimeout(connect, 50);
          return;
        }
        state('lost');
        if (retries < 5) setTimeout(connect, 500 * Math.pow(2, retries++));
        else state('ended');
      };
    }

    var resizeTimer = null;
    new ResizeObserver(function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () { send(screen()); }, 150);
    }).observe(root);

    root.addEventListener('liveview:stop', function () {
      if (ended) return;
      ended = true;
      if (socket) socket.close(1000);
      else state('ended');
    });

    if (control) enableInput();
    connect();

    function point(e) {
      var rect = canvas.getBoundingClientRect();
      if (!rect.width || !rect.height || !frame.width) return null;
      return {
        x: Math.round(((e.clientX - rect.left) / rect.width) * frame.width),
        y: Math.round(((e.clientY - rect.top) / rect.height) * frame.height),
      };
    }

    function focusKeys() {
      if (document.activeElement !== keys) keys.focus({ preventScroll: true });
      keys.value = SENTINEL;
    }

    function enableInput() {
      var touch = null; // a finger on the canvas: a tap becomes a click, a drag scrolls the page
      var moveQueued = null;
      var BUTTONS = ['left', 'middle', 'right'];

      canvas.addEventListener('contextmenu', function (e) { e.preventDefault(); });
      canvas.addEventListener('pointerdown', function (e) {
        e.preventDefault();
        var p = point(e);
        if (!p) return;
        if (e.pointerType === 'mouse') {
          send({ t: 'mouse', action: 'down', x: p.x, y: p.y, button: BUTTONS[e.button] || 'left', clickCount: e.detail || 1, modifiers: modifiers(e) });
          focusKeys();
        } else {
          touch = { id: e.pointerId, startX: e.clientX, startY: e.clientY, lastX: e.clientX, lastY: e.clientY, dragging: false };
          canvas.setPointerCapture(e.pointerId);
        }
      });
      canvas.addEventListener('pointermove', function (e) {
        if (e.pointerType === 'mouse') {
          var p = point(e);
          if (!p) return;
          if (!moveQueued) requestAnimationFrame(function () {
            send({ t: 'mouse', action: 'move', x: moveQueued.x, y: moveQueued.y, modifiers: 0 });
            moveQueued = null;
          });
          moveQueued = p;
          return;
        }
        if (!touch || touch.id !== e.pointerId) return;
        if (!touch.dragging && Math.hypot(e.clientX - touch.startX, e.clientY - touch.startY) > 8) touch.dragging = true;
        if (touch.dragging) {
          var at = point(e);
          var scale = frame.width / canvas.getBoundingClientRect().width;
          if (at) send({ t: 'wheel', x: at.x, y: at.y, deltaX: (touch.lastX - e.clientX) * scale, deltaY: (touch.lastY - e.clientY) * scale });
          touch.lastX = e.clientX;
          touch.lastY = e.clientY;
        }
      });
      canvas.addEventListener('pointerup', function (e) {
        var p = point(e);
        if (e.pointerType === 'mouse') {
          if (p) send({ t: 'mouse', action: 'up', x: p.x, y: p.y, button: BUTTONS[e.button] || 'left', clickCount: e.detail || 1, modifiers: modifiers(e) });
          return;
        }
        var wasTap = touch && touch.id === e.pointerId && !touch.dragging;
        touch = null;
        if (wasTap && p) {
          send({ t: 'mouse', action: 'down', x: p.x, y: p.y, button: 'left', clickCount: 1, modifiers: 0 });
          send({ t: 'mouse', action: 'up', x: p.x, y: p.y, button: 'left', clickCount: 1, modifiers: 0 });
          // Inside the tap itself, so that the phone opens its on-screen keyboard.
          focusKeys();
        }
      });
      canvas.addEventListener('pointercancel', function () { touch = null; });
      canvas.addEventListener('wheel', function (e) {
        e.preventDefault();
        var p = point(e);
        if (p) send({ t: 'wheel', x: p.x, y: p.y, deltaX: e.deltaX, deltaY: e.deltaY });
      }, { passive: false });

      // Physical keyboards: keys are relayed as keys (the page sees keydown/keyup as if typed there).
      var held = {};
      keys.addEventListener('keydown', function (e) {
        if (e.isComposing || e.key === 'Unidentified' || e.keyCode === 229) return; // phone keyboards: see `input`
        var special = SPECIAL.indexOf(e.key) !== -1;
        if (!special && e.key.length !== 1) return; // Shift, Control, …: carried as modifiers
        e.preventDefault();
        held[e.code || e.key] = e.key;
        send({ t: 'key', action: 'down', key: e.key, modifiers: modifiers(e) });
      });
      keys.addEventListener('keyup', function (e) {
        var key = held[e.code || e.key];
        if (key === undefined) return;
        delete held[e.code || e.key];
        e.preventDefault();
        send({ t: 'key', action: 'up', key: key, modifiers: modifiers(e) });
      });
      // On-screen keyboards: characters arrive as text edits of the hidden input.
      keys.addEventListener('input', function (e) {
        var type = e.inputType || '';
        if (type === 'deleteContentBackward' && keys.value.indexOf(SENTINEL) === -1) {
          send({ t: 'key', action: 'down', key: 'Backspace', modifiers: 0 });
          send({ t: 'key', action: 'up', key: 'Backspace', modifiers: 0 });
        } else if (type === 'insertLineBreak') {
          send({ t: 'key', action: 'down', key: 'Enter', modifiers: 0 });
          send({ t: 'key', action: 'up', key: 'Enter', modifiers: 0 });
        } else {
          var typed = keys.value.split(SENTINEL).join('');
          if (typed) send({ t: 'text', text: typed });
        }
        keys.value = SENTINEL;
      });
      keys.form && keys.form.addEventListener('submit', function (e) {
        e.preventDefault();
        send({ t: 'key', action: 'down', key: 'Enter', modifiers: 0 });
        send({ t: 'key', action: 'up', key: 'Enter', modifiers: 0 });
        keys.value = SENTINEL;
      });
      if (keyboardButton) {
        keyboardButton.hidden = false;
        keyboardButton.addEventListener('click', focusKeys);
      }
    }
  }

  var roots = document.querySelectorAll('[data-live-view]');
  for (var i = 0; i < roots.length; i++) start(roots[i]);
})();

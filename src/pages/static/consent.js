// Double-clickjacking: a page the person is double-clicking on can put this one under the second
// click (it navigates its opener here on the first press, or closes a popup that covered this
// window). Frame-busting cannot help: no frame is involved. So Approve answers only once this page
// has been shown, and had the focus, for a moment a double-click cannot span; every change of
// focus or visibility starts that moment again. Deny needs no such care.
(function () {
  'use strict';
  var approve = document.querySelector('[data-approve]');
  if (!approve) return;
  var SETTLE_MS = 700;
  var timer = null;
  function settle() {
    approve.disabled = true;
    clearTimeout(timer);
    if (document.visibilityState === 'visible' && document.hasFocus()) {
      timer = setTimeout(function () { approve.disabled = false; }, SETTLE_MS);
    }
  }
  window.addEventListener('focus', settle);
  window.addEventListener('blur', settle);
  window.addEventListener('pageshow', settle);
  document.addEventListener('visibilitychange', settle);
  settle();
})();

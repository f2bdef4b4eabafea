// Appended to a copy of report.html by page_layout.sh and run by headless Chromium: lists what
// a reader at this window width would find broken, into <pre id="layout-result">:
//  - the page wider than the window (the whole page scrolls sideways);
//  - an element, or the text in it (a long path that cannot wrap), that reaches past the window's
//    right edge without a scrolling box around it (cut off);
//  - an image or drawing taller than its drawing needs at the width it got (blank rows), or an
//    image that did not decode;
//  - text smaller than 10 px;
//  - a bench verdict (td.verdict) past the window's right edge, scrolling box or not;
//  - a table of a few columns (4 or fewer) that needs sideways scrolling: it must fit;
//  - a sentence of 12 words or more shown twice (each warning and finding is said once).
// page_layout.sh shows the page in an iframe of the width under test (Chromium's headless window
// is never narrower than 500 px), so the result also goes to the parent page.
window.addEventListener('load', function () {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const name = (el) =>
    el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '') +
    ' "' + (el.textContent || '').trim().slice(0, 30) + '"';
  const scrollBox = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return p;
    }
    return null;
  };
  if (document.documentElement.scrollWidth > width + 1)
    problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' +
                  width + ' px window');
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right > width + 1 && !scrollBox(el))
      problems.push(name(el) + ' ends at ' + Math.round(r.right) + ' px, past the window');
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (texts.length) {
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < 10) problems.push(name(el) + ' has ' + size + ' px text');
      // Text can run out of its element's box (a long file path that cannot wrap).
      if (!scrollBox(el) && getComputedStyle(el).overflowX === 'visible') {
        for (const t of texts) {
          const range = document.createRange();
          range.selectNodeContents(t);
          const right = range.getBoundingClientRect().right;
          if (right > width + 1)
            problems.push(name(el) + ': its text ends at ' + Math.round(right) + ' px, past the window');
        }
      }
    }
  }
  // A bench's verdict is what a reader came for: on screen without scrolling sideways, even
  // inside a scrolling table.
  for (const el of document.querySelectorAll('td.verdict')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1)
      problems.push(name(el) + ' (a verdict) ends at ' + Math.round(r.right) +
                    ' px: only reachable by scrolling sideways');
  }
  // A small table is read whole: at 400 px it stacks or fits, never scrolls sideways.
  for (const table of document.querySelectorAll('table')) {
    const cols = table.rows.length ? table.rows[0].cells.length : 0;
    const box = scrollBox(table);
    if (cols > 0 && cols <= 4 && box && box.scrollWidth > box.clientWidth + 1)
      problems.push(name(table) + ' (' + cols + ' columns) is cut: ' + box.scrollWidth +
                    ' px in a ' + box.clientWidth + ' px box');
  }
  for (const img of document.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    if (!img.complete || img.naturalWidth === 0) { problems.push(name(img) + ' did not load'); continue; }
    const needed = r.width * img.naturalHeight / img.naturalWidth;
    if (r.height > needed + 20) problems.push(name(img) + ' is ' + Math.round(r.height) +
                                              ' px tall for ' + Math.round(needed) + ' px of image');
  }
  for (const svg of document.querySelectorAll('svg')) {
    const r = svg.getBoundingClientRect();
    const box = svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width) continue;
    const needed = r.width * box.height / box.width;
    if (r.height > needed + 20) problems.push(name(svg) + ' is ' + Math.round(r.height) +
                                              ' px tall for ' + Math.round(needed) + ' px of drawing');
  }
  // Each warning and finding once: a sentence of 12 words or more in the page's prose (its
  // paragraphs and list items, not table cells, notes, preformatted text or a closed <details>)
  // that is shown twice or more is read as often.
  const seen = new Map();
  for (const el of document.querySelectorAll('p, li')) {
    if (!el.getClientRects().length) continue;
    if (el.closest('td, th, .note, pre') || el.querySelector('p, li')) continue;
    for (const s of el.innerText.split(/(?<=[.!?])\s+|\n+/)) {
      const t = s.replace(/\s+/g, ' ').trim();
      if (t.split(' ').length < 12) continue;
      seen.set(t, (seen.get(t) || 0) + 1);
    }
  }
  for (const [t, n] of seen)
    if (n > 1) problems.push('said ' + n + ' times: "' + t.slice(0, 80) + '"');
  const text = 'LAYOUT ' + (problems.length ? 'FAIL ' + problems.slice(0, 15).join(' | ') : 'OK') +
               ' (' + width + ' px)';
  if (window.parent !== window) window.parent.postMessage(text, '*');
});

// Applies the saved theme (light, dark or system) before the first paint. Synchronous and tiny on
// purpose: it runs from <head> as an external file, so the page needs no inline script.
;(function () {
  var choice = 'system'
  try { choice = localStorage.getItem('synapse.theme') || 'system' } catch (e) {}
  var dark = choice === 'dark' || (choice !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches)
  var root = document.documentElement
  root.classList.toggle('dark', dark)
  root.style.colorScheme = dark ? 'dark' : 'light'
  root.dataset.theme = choice
})()

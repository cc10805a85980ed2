// Light, dark or system, saved in localStorage. public/theme.js applies it before the first paint;
// this module changes it at run time and follows the OS while "system" is chosen.
import { useEffect, useState } from 'react'

export type ThemeChoice = 'light' | 'dark' | 'system'
const KEY = 'synapse.theme'

export function readTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY)
    return value === 'light' || value === 'dark' ? value : 'system'
  } catch {
    return 'system'
  }
}

function prefersDark(): boolean {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? true
}

export function applyTheme(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && prefersDark())
  const root = document.documentElement
  // Swap the tokens at once: colour transitions would fade every surface through the other theme.
  root.classList.add('theme-switching')
  root.classList.toggle('dark', dark)
  void root.offsetWidth
  requestAnimationFrame(() => root.classList.remove('theme-switching'))
  root.style.colorScheme = dark ? 'dark' : 'light'
  root.dataset.theme = choice
}

export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(readTheme)
  useEffect(() => {
    applyTheme(choice)
    if (choice !== 'system' || !window.matchMedia) return
    const query = window.matchMedia('(prefers-color-scheme: dark)')
    const follow = () => applyTheme('system')
    query.addEventListener('change', follow)
    return () => query.removeEventListener('change', follow)
  }, [choice])
  const set = (next: ThemeChoice) => {
    try {
      localStorage.setItem(KEY, next)
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    setChoice(next)
  }
  return [choice, set]
}

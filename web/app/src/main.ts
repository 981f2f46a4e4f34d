import './style.css';
import { startApp } from './app.ts';

// The entry of the bundle (vite.config.ts). Whatever fails, the person reads words, not a blank page.

try {
  startApp();
} catch (e) {
  console.error(e);
  const main = document.getElementById('main');
  if (main) {
    main.textContent = '';
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent =
      'This page could not start. Reload it to try again; if that does not help, your browser may be too old for it.';
    main.append(p);
  }
}

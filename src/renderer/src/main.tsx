import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { findBridge } from './bridge';
import { applyTheme } from './lib/theme';
import './styles.css';

// Follow the OS until the settings arrive (the not-connected page included).
applyTheme('system');
const root = document.getElementById('root');
if (!root) throw new Error('index.html lacks #root');
const bridge = await findBridge();
createRoot(root).render(
  <StrictMode>
    <App bridge={bridge} />
  </StrictMode>,
);

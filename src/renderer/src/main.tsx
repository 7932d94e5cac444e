import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { findBridge } from './bridge';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html lacks #root');
const bridge = await findBridge();
createRoot(root).render(
  <StrictMode>
    <App bridge={bridge} />
  </StrictMode>,
);

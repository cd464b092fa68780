import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Startup } from './app/startup';
import './styles/tokens.css';
import './styles/global.css';

const container = document.getElementById('root');
if (container === null) {
  throw new Error('The page has no #root element');
}

createRoot(container).render(
  <StrictMode>
    <Startup />
  </StrictMode>,
);

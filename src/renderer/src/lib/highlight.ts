/**
 * Syntax highlighting for code blocks, loaded on first use (its own chunk): lowlight (highlight.js
 * grammars) gives a tree, turned into React elements here, so highlighted code is never HTML.
 */
import { createElement, type ReactNode } from 'react';

/** The parts of lowlight's tree this module reads (hast). */
interface HastText {
  type: 'text';
  value: string;
}
interface HastElement {
  type: 'element';
  properties?: { className?: unknown };
  children: HastNode[];
}
type HastNode = HastText | HastElement | { type: string };
interface Highlighter {
  registered(language: string): boolean;
  highlight(language: string, code: string): { children: HastNode[] };
}

let loading: Promise<Highlighter> | undefined;

function load(): Promise<Highlighter> {
  loading ??= import('lowlight').then(({ common, createLowlight }) => createLowlight(common));
  return loading;
}

/** Code longer than this stays plain: highlighting it would stall the page. */
const MAX_CODE = 100_000;

/** The code as highlighted elements, or null when the language is unknown (shown plain). */
export async function highlight(code: string, language: string): Promise<ReactNode[] | null> {
  const lang = language.trim().toLowerCase();
  if (!lang || code.length > MAX_CODE) return null;
  const lowlight = await load();
  if (!lowlight.registered(lang)) return null;
  return toReact(lowlight.highlight(lang, code).children, 'h');
}

function toReact(nodes: HastNode[], key: string): ReactNode[] {
  return nodes.map((node, index) => {
    if (node.type === 'text') return (node as HastText).value;
    if (node.type !== 'element') return null;
    const element = node as HastElement;
    const names = element.properties?.className;
    const className = Array.isArray(names)
      ? names.filter((n) => typeof n === 'string').join(' ')
      : undefined;
    const k = `${key}.${index}`;
    return createElement('span', { key: k, className }, ...toReact(element.children, k));
  });
}

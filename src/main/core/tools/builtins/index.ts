import type { Tool } from '../types.js';
import { sysExec } from './exec.js';
import { fsEdit, fsList, fsRead, fsSearch, fsWrite } from './fs.js';
import { memorySearch } from './memory.js';
import { netFetch } from './net.js';

export const BUILTIN_TOOLS: readonly Tool[] = [
  fsRead,
  fsWrite,
  fsEdit,
  fsList,
  fsSearch,
  sysExec,
  netFetch,
  memorySearch,
];

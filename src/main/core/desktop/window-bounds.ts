/**
 * The main window's size and position, remembered in desktop.json. A saved position is only
 * trusted where it still lands on a screen: displays change between launches (a laptop leaves
 * its monitor), and a window restored off-screen could not be reached.
 */
import { z } from 'zod';

export const WindowBoundsSchema = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive().max(100_000),
  height: z.number().int().positive().max(100_000),
  maximized: z.boolean().default(false),
});

export type WindowBounds = z.infer<typeof WindowBoundsSchema>;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowSizing {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
}

/** The main window's first-launch size and its minimum. */
export const MAIN_WINDOW_SIZING: WindowSizing = {
  width: 1100,
  height: 760,
  minWidth: 640,
  minHeight: 480,
};

/** Where the window opens: x/y absent lets the system centre it. */
export interface InitialBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

const clamp = (value: number, low: number, high: number) =>
  Math.min(Math.max(value, low), Math.max(low, high));

/**
 * The bounds to open with, from what was saved and the work areas of the displays now attached
 * (primary first). The window goes on the display it overlaps most, shrunk to fit it and moved
 * wholly onto it; with no overlap at all (off-screen) the system places it at the saved size.
 */
export function initialBounds(
  saved: WindowBounds | null,
  workAreas: readonly Rect[],
  sizing: WindowSizing,
): InitialBounds {
  if (!saved) return { width: sizing.width, height: sizing.height, maximized: false };
  let best: Rect | undefined;
  let bestOverlap = 0;
  for (const area of workAreas) {
    const shared = overlap(saved, area);
    if (shared > bestOverlap) {
      best = area;
      bestOverlap = shared;
    }
  }
  const fitIn = best ?? workAreas[0];
  const width = clamp(saved.width, sizing.minWidth, fitIn?.width ?? saved.width);
  const height = clamp(saved.height, sizing.minHeight, fitIn?.height ?? saved.height);
  if (!best) return { width, height, maximized: saved.maximized };
  return {
    x: clamp(saved.x, best.x, best.x + best.width - width),
    y: clamp(saved.y, best.y, best.y + best.height - height),
    width,
    height,
    maximized: saved.maximized,
  };
}

/** What to save from the window: its normal (unmaximized) bounds, rounded, and whether maximized. */
export function boundsToSave(normal: Rect, maximized: boolean): WindowBounds {
  return {
    x: Math.round(normal.x),
    y: Math.round(normal.y),
    width: Math.max(1, Math.round(normal.width)),
    height: Math.max(1, Math.round(normal.height)),
    maximized,
  };
}

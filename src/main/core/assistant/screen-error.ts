/** Error text as a surface may show it: no secret, no data directory, no home folder. */

import os from 'node:os';

export function errorScreen(
  redact: (text: string) => string,
  dataDir: string,
): (text: string) => string {
  // Longest first: the data dir usually lies inside the home folder.
  const hidden: Array<[string, string]> = [
    [dataDir, '<data dir>'],
    [os.homedir(), '~'],
  ];
  return (text) =>
    hidden.reduce(
      (out, [place, name]) => (place ? out.split(place).join(name) : out),
      redact(text),
    );
}

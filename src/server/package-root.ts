import { existsSync } from "node:fs";

/**
 * The directory holding package.json above the module at `moduleUrl`: the same from the sources
 * (src/server/) and from the compiled bundle (dist/), so assets are found by one path either way.
 */
export function packageRoot(moduleUrl: string): URL {
  let directory = new URL(".", moduleUrl);
  while (!existsSync(new URL("package.json", directory))) {
    const parent = new URL("..", directory);
    if (parent.href === directory.href) throw new Error(`no package.json above ${moduleUrl}`);
    directory = parent;
  }
  return directory;
}

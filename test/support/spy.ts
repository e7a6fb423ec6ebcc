// A kernel instance whose calls to some exports are recorded: tests that check which kernel
// calls the glue makes (the one-call paths, the powers policy, the group sizes).

/** Record the calls (name and arguments) that `k` makes to the named exports, from now on. */
export function spied<K extends { exports: object }>(k: K, names: string[]): { k: K; calls: [string, number[]][] } {
  const calls: [string, number[]][] = [];
  const ex = { ...(k.exports as Record<string, unknown>) };
  for (const n of names) {
    const f = ex[n] as (...a: number[]) => unknown;
    ex[n] = (...a: number[]) => {
      calls.push([n, a]);
      return f(...a);
    };
  }
  (k as { exports: object }).exports = ex;
  return { k, calls };
}

/** How many of the recorded calls went to `name`. */
export const count = (calls: [string, number[]][], name: string): number => calls.filter(([n]) => n === name).length;

/** Runs f with obj[name] replaced by make(the original), restored afterwards however f ends. */
export async function replaced<T extends object, K extends keyof T>(obj: T, name: K, make: (orig: T[K]) => T[K], f: () => Promise<unknown>): Promise<void> {
  const orig = obj[name];
  obj[name] = make(orig);
  try {
    await f();
  } finally {
    obj[name] = orig;
  }
}

/** Runs f with obj[name] wrapped: each call's arguments and then its result pushed to `calls`. */
export function recorded<T extends object>(obj: T, name: keyof T, calls: unknown[][], f: () => Promise<unknown>): Promise<void> {
  return replaced(
    obj,
    name,
    (orig) =>
      function (this: unknown, ...args: unknown[]) {
        const r = (orig as (...a: unknown[]) => unknown).apply(this, args);
        calls.push([...args, r]);
        return r;
      } as T[keyof T],
    f,
  );
}

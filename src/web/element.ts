// The pages' one way to build DOM (the dashboard and the customer app).

export type Child = Node | string | number | false | null | undefined | Child[];
export type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/**
 * Builds an element. Text is always set as text (never parsed as HTML), so data from the server
 * cannot inject markup. `on…` attributes take listeners; `true`/`false` set or drop boolean attributes.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

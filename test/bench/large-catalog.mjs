// The demo catalog plus one synthetic store with a large menu. The demo's largest menu has 21
// items (about 7.5 KB of JSON), which is not "a large menu"; this store has 10 categories of 20
// items (200 items, ten times the demo's largest), each item a copy of one of Shawarma Al Reem's
// items with its modifier groups, so the shape is the demo's and only the size differs.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './service.mjs';

export const LARGE_STORE_ID = 'bench-large-menu';
const CATEGORIES = 10;
const ITEMS_PER_CATEGORY = 20;

export function writeLargeCatalog(file) {
  const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, 'src/catalog-data/demo-catalog.json'), 'utf8'));
  const reem = catalog.stores.find((s) => s.id === 'kw-shawarma-reem');
  const templates = reem.menu.categories.flatMap((c) => c.items);
  const categories = [];
  for (let c = 0; c < CATEGORIES; c++) {
    const items = [];
    for (let i = 0; i < ITEMS_PER_CATEGORY; i++) {
      const t = templates[(c * ITEMS_PER_CATEGORY + i) % templates.length];
      const n = c * ITEMS_PER_CATEGORY + i + 1;
      items.push({
        ...structuredClone(t),
        id: `${t.id}-${n}`,
        name: `${t.name} ${n}`,
        image_url: t.image_url?.replace('kw-shawarma-reem', LARGE_STORE_ID) ?? null,
      });
    }
    categories.push({ id: `section-${c + 1}`, name: `Section ${c + 1}`, name_ar: null, items });
  }
  const store = {
    ...structuredClone(reem),
    id: LARGE_STORE_ID,
    name: 'Bench Large Menu Kitchen',
    name_ar: null,
    image_url: reem.image_url?.replace('kw-shawarma-reem', LARGE_STORE_ID) ?? null,
    menu: { categories },
  };
  catalog.stores.push(store);
  catalog.version = `${catalog.version}+bench-large-menu`.slice(0, 64);
  fs.writeFileSync(file, JSON.stringify(catalog));
  return {
    storeId: LARGE_STORE_ID,
    items: CATEGORIES * ITEMS_PER_CATEGORY,
    menuBytes: JSON.stringify(store.menu).length,
  };
}

import type { GroupKey } from './groups.js';

/** slug, name, Arabic name, description, Arabic description, price in Kuwaiti fils, modifier groups. */
export type ItemTpl = [
  slug: string,
  name: string,
  nameAr: string,
  description: string,
  descriptionAr: string | null,
  fils: number,
  groups?: GroupKey[],
];

export interface SectionTpl {
  id: string;
  name: string;
  nameAr: string;
  items: ItemTpl[];
}

/** A kind of store (cuisine, pharmacy, grocery): its menu and how such stores describe themselves. */
export interface MenuTpl {
  key: string;
  categoryIds: string[];
  prepMin: number;
  /** `{area}` is replaced by the store's area. */
  tagline: string;
  taglineAr: string;
  sections: SectionTpl[];
}

export const section = (id: string, name: string, nameAr: string, items: ItemTpl[]): SectionTpl => ({
  id,
  name,
  nameAr,
  items,
});

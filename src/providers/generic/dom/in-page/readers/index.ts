import { boxes } from './boxes.ts';
import { controls } from './controls.ts';
import { dateParts } from './date-parts.ts';
import { definitions } from './definitions.ts';
import { dialogs } from './dialogs.ts';
import { fields } from './fields.ts';
import { forms } from './forms.ts';
import { frames } from './frames.ts';
import { lists } from './lists.ts';
import { pairs } from './pairs.ts';
import { groupSteppers, steppers } from './steppers.ts';
import { radioGroups } from './radio-groups.ts';
import { sliders } from './sliders.ts';
import { structuredData } from './structured-data.ts';
import { tables } from './tables.ts';
import { text } from './text.ts';
import type { Reader } from '../page.ts';

// The page's sources, by name: the snapshot is what they read, put together in this order (arrays
// two of them give, `fields` and `pairs`, are joined in it). A new source is a file in this folder
// and a line here.
export const READERS: Readonly<Record<string, Reader>> = {
  text,
  forms,
  dialogs,
  fields,
  boxes,
  lists,
  steppers,
  dateParts,
  sliders,
  radioGroups,
  groupSteppers,
  controls,
  frames,
  structuredData,
  definitions,
  tables,
  pairs,
};

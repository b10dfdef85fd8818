import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Adds `.openapi()` to zod schemas once; every HTTP schema imports `z` from here.
extendZodWithOpenApi(z);

export { z };

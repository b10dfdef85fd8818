/**
 * Query parameters that only come together. zod-to-openapi writes one parameter per key of a query
 * schema, so an optional `lat` and an optional `lng` read as independent, while the service refuses
 * one without the other (pairedPoint in ../schemas/catalog.ts). OpenAPI 3.1 says "both or neither"
 * with one optional parameter whose schema is an object requiring both, serialised `style: form,
 * explode: true`: each property is its own `name=value` pair, `lat=29.3349&lng=48.0878`, the same
 * request as before.
 */

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Operation = { parameters?: Parameter[] };

/** The name of the combined parameter; it never appears on the wire (only lat and lng do). */
export const POINT_PARAMETER = 'point';

const POINT_DESCRIPTION =
  'The delivery point, sent as two query parameters, `lat` and `lng` (`lat=29.3349&lng=48.0878`): both or neither. One alone is a 400 validation_error naming the missing one.';

/**
 * Replaces, in every operation of `document`, an optional `lat` and an optional `lng` query
 * parameter with one optional exploded object parameter requiring both (in the place of `lat`).
 * Required ones (the delivery quote) already say both. Changes `document` and returns it.
 */
export function pairPointParameters(document: Record<string, unknown>): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const parameters = operation.parameters;
      if (!parameters) continue;
      const find = (name: string) => parameters.find((p) => p.in === 'query' && p.name === name && !p.required);
      const lat = find('lat');
      const lng = find('lng');
      if (!lat || !lng) continue;
      const point: Parameter & Record<string, unknown> = {
        name: POINT_PARAMETER,
        in: 'query',
        required: false,
        description: POINT_DESCRIPTION,
        style: 'form',
        explode: true,
        schema: {
          type: 'object',
          properties: { lat: propertySchema(lat), lng: propertySchema(lng) },
          required: ['lat', 'lng'],
          // The object is only lat and lng; the operation's other query parameters are its siblings.
          additionalProperties: false,
        },
      };
      operation.parameters = parameters.flatMap((p) => (p === lat ? [point] : p === lng ? [] : [p]));
    }
  }
  return document;
}

/** The parameter's schema, with its description (the parameter's own, when the schema has none). */
function propertySchema(parameter: Parameter): Schema {
  const schema = parameter.schema ?? {};
  return parameter.description && schema.description === undefined
    ? { ...schema, description: parameter.description }
    : { ...schema };
}

import Joi from 'joi';
import { RouteDocs } from '../../openapi/route-docs';

const page = (what: string) => ({
  summary: what,
  tag: 'console',
  responses: { 200: { description: 'The page', contentType: 'text/html', schema: Joi.string() } },
});

export const consoleOpenApi: RouteDocs = {
  'GET /': page('The web console (routes live in the URL fragment; it calls /v1 with the user\'s key)'),
  'GET /index.html': page('The web console page'),
  'GET /favicon.svg': {
    summary: "The console's icon",
    tag: 'console',
    responses: { 200: { description: 'The icon', contentType: 'image/svg+xml', schema: Joi.string() } },
  },
};

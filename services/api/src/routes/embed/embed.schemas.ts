import Joi from 'joi';
import type { EmbedBody } from '@ams/vectors';
import { nonBlank } from '../../validation/common.schemas';

/** Texts per call: one model call, bounded like a batch create's share of a request. */
const EMBED_BATCH_MAX = 64;
const EMBED_TEXT_MAX = 10_000;

/** `text`, or `texts` for several at once (then `text` must be absent). */
export const embedBody = Joi.object<EmbedBody>({
  text: nonBlank(EMBED_TEXT_MAX).when('texts', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} must be absent when texts is sent' }),
    otherwise: Joi.required(),
  }),
  texts: Joi.array().items(nonBlank(EMBED_TEXT_MAX)).min(1).max(EMBED_BATCH_MAX),
  prefix: Joi.string().valid('search_query', 'search_document'),
});

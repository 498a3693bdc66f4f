import Joi from 'joi';

export interface StartReembedBody {
  /** Default: the configured EMBEDDING_MODEL. */
  model?: string;
}

export const startReembedBody = Joi.object<StartReembedBody>({
  model: Joi.string().trim().min(1).max(200),
});

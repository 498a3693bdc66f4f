import Joi from 'joi';
import { slug } from '../projects/projects.schemas';

export interface SuggestPatternsQuery {
  project: string;
  limit: number;
}

export const suggestPatternsQuery = Joi.object<SuggestPatternsQuery>({
  project: slug.min(1).required(),
  limit: Joi.number().integer().min(1).max(100).default(10),
});

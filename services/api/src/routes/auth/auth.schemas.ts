import Joi from 'joi';

export interface RegisterBody {
  email: string;
  password: string;
}

export const registerBody = Joi.object<RegisterBody>({
  email: Joi.string().trim().lowercase().max(254).email({ tlds: false }).required(),
  password: Joi.string().min(8).max(128).required(),
});

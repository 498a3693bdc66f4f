import Joi from 'joi';

/** Hops and neighbours a walk may ask for: the largest any known client offers (docs/clients.md, "Additional endpoints"). */
const NEIGHBOURHOOD_DEPTH_MAX = 5;
const NEIGHBOURS_MAX = 100;

export interface NeighbourhoodQuery {
  depth: number;
  max_neighbors: number;
}

export const neighbourhoodQuery = Joi.object<NeighbourhoodQuery>({
  depth: Joi.number().integer().min(1).max(NEIGHBOURHOOD_DEPTH_MAX).default(1),
  max_neighbors: Joi.number().integer().min(1).max(NEIGHBOURS_MAX).default(50),
});

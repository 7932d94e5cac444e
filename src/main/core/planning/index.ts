/** Predictive planning: the manifest's WorldModels consulted before a call with side effects. */
export {
  customPredictor,
  providerPredictor,
  type SimulatorRun,
  toolPredictor,
} from './predictors.js';
export { type Planner, worldModelGuarded } from './world-model-guard.js';

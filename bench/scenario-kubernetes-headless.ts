/** The cluster of scenario-kubernetes-cluster: a headless name, five addresses per answer. */
import { clusterSetup, endpointsPerService, services } from './scenario-kubernetes-cluster.js';
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: `kubernetes ${services / 1000}k svc ${(services * endpointsPerService) / 1000}k ep, headless A`,
  targetRatio: 1.2,
  setup: () => clusterSetup('svc4324.ns24.svc.cluster.local'),
};
export default scenario;

/**
 * deploy/k8s rendered and checked: every object valid against the Kubernetes (and KEDA) schemas,
 * a Deployment per component with probes, resources and a grace period longer than its drain,
 * settings that src/config.ts knows and accepts, and KEDA scalers on the real stream, group and
 * job-list names of the code.
 */
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, SETTINGS } from '../../src/config.ts';
import { groupOf, topicKeys, type Topic } from '../../src/shared/bus/topics.ts';
import { parseRedisUrl } from '../../src/shared/redis.ts';
import { jobsPrefix, QUEUE } from '../../src/indexer/worker.ts';
import {
  hasKubectl,
  idOf,
  k8sDir,
  kubectlKustomize,
  readObjects,
  renderBase,
  validateObject,
  type K8sObject,
} from '../support/kustomize.ts';
import { connectRedis, dropPrefix, REDIS_URL, ROOT, uniquePrefix } from '../support/services.ts';

/** Rendered YAML is looked into freely: a wrong shape fails the expectations. */
type Any = any;

const COMPONENTS = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'] as const;
const WORKERS: Topic[] = ['channel', 'language', 'flow', 'retriver', 'indexer'];
const BASE = join(k8sDir(ROOT), 'base');
const OVERLAY = join(k8sDir(ROOT), 'overlays', 'example');
const CLUSTER_OVERLAY = join(k8sDir(ROOT), 'overlays', 'redis-cluster');
const SECRET_TEMPLATE = join(BASE, 'secret.template.yaml');

const find = (objects: K8sObject[], kind: string, name: string): Any =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

/** The settings' ConfigMap: `botwire-settings-<hash of its content>`. */
const settingsOf = (objects: K8sObject[]): Any => {
  const maps = objects.filter(
    (o) => o.kind === 'ConfigMap' && /^botwire-settings-[a-z0-9]{10}$/.test(o.metadata.name),
  );
  expect(maps, 'one botwire-settings-<hash>').to.have.length(1);
  return maps[0];
};

/** The pod template's first container and the pod spec of a Deployment. */
const podOf = (object: Any): { pod: Any; container: Any } => ({
  pod: object.spec.template.spec,
  container: object.spec.template.spec.containers[0],
});

/**
 * Every worker's ScaledObject reads the lag of its topic's real partition streams (one trigger of
 * type `streams` each, the code's keys and group) on `expected` Redis, and the indexer's also
 * BullMQ's waiting list (type `list`): the base's single-server triggers and an overlay's
 * cluster ones alike.
 */
function expectScalersOnTheCodesKeys(
  objects: K8sObject[],
  settings: Record<string, string>,
  how: { streams: string; list: string; address: (trigger: Any) => string; expected: string },
): void {
  const partitions = Number(settings.TOPIC_PARTITIONS);
  for (const c of WORKERS) {
    const scaled = find(objects, 'ScaledObject', `botwire-${c}`);
    expect(scaled?.spec.scaleTargetRef.name, c).to.equal(`botwire-${c}`);
    expect(scaled.spec.maxReplicaCount, c).to.be.at.most(partitions);
    const types = [how.streams, ...(c === 'indexer' ? [how.list] : [])];
    expect(
      scaled.spec.triggers.filter((t: Any) => !types.includes(t.type)),
      `${c}: triggers of another type`,
    ).to.deep.equal([]);
    const streams = scaled.spec.triggers.filter((t: Any) => t.type === how.streams);
    expect(
      streams.map((t: Any) => t.metadata.stream),
      c,
    ).to.deep.equal(topicKeys(settings.STREAM_PREFIX!, c, partitions).partitions);
    for (const t of scaled.spec.triggers) {
      if (t.type === how.streams) {
        expect(t.metadata.consumerGroup, c).to.equal(groupOf(c));
        expect(Number(t.metadata.lagCount), c).to.be.greaterThan(0);
      }
      expect(how.address(t), c).to.equal(how.expected);
    }
  }
  const lists = find(objects, 'ScaledObject', 'botwire-indexer').spec.triggers.filter(
    (t: Any) => t.type === how.list,
  );
  expect(lists.map((t: Any) => t.metadata.listName)).to.deep.equal([
    `${jobsPrefix(settings.STREAM_PREFIX!)}:${QUEUE}:wait`,
  ]);
}

describe('Kubernetes manifests (deploy/k8s)', function () {
  this.timeout(120_000);
  const objects = renderBase(BASE);
  const settingsMap = settingsOf(objects);
  const settings = settingsMap.data as Record<string, string>;
  const [secret] = readObjects(SECRET_TEMPLATE) as Any[];
  const secretKeys = Object.keys(secret.stringData);
  /** The settings a component's pods get: the ConfigMap, and the Secret's keys as stand-ins. */
  const envOf = (names: string[]): Record<string, string> => {
    const stand: Record<string, string> = {
      ADMIN_API_KEY: 'k'.repeat(40),
      CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATABASE_URL: 'postgres://botwire:secret@postgres:5432/botwire',
      REDIS_URL: 'redis://:secret@redis.botwire.svc:6379',
    };
    return {
      ...settings,
      ...Object.fromEntries(names.map((name) => [name, stand[name] ?? 'x'])),
    };
  };

  it('when rendered, then every object (the Secret template too) is valid against its schema', async () => {
    expect(objects.length).to.be.greaterThan(15);
    for (const object of [...objects, secret]) await validateObject(object);
  });

  it('when kubectl is installed, then its rendering of the base is the same as this one', async function () {
    if (!(await hasKubectl())) {
      // Not on a fresh machine; renderBase above covers the base without it.
      this.skip();
    }
    const rendered = await kubectlKustomize(BASE);
    const byId = (list: K8sObject[]) => Object.fromEntries(list.map((o) => [idOf(o), o] as const));
    expect(byId(rendered)).to.deep.equal(byId(objects));
  });

  it('when a setting changes, then the settings ConfigMap gets a new name and every pod template names it, so every component rolls out with it', () => {
    const copy = mkdtempSync(join(tmpdir(), 'botwire-k8s-'));
    try {
      cpSync(BASE, copy, { recursive: true });
      const env = join(copy, 'settings.env');
      writeFileSync(env, readFileSync(env, 'utf8').replace('LOG_LEVEL=info', 'LOG_LEVEL=debug'));
      const changed = renderBase(copy);
      const renamed = settingsOf(changed);
      expect(renamed.metadata.name).not.to.equal(settingsMap.metadata.name);
      expect(renamed.data.LOG_LEVEL).to.equal('debug');
      for (const c of COMPONENTS) {
        const { pod } = podOf(find(changed, 'Deployment', `botwire-${c}`));
        for (const container of [...pod.containers, ...pod.initContainers]) {
          expect(container.envFrom, c).to.deep.equal([
            { configMapRef: { name: renamed.metadata.name } },
          ]);
        }
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('when each component is looked for, then it has a Deployment running it with probes, resources and a non-root, read-only container', () => {
    for (const c of COMPONENTS) {
      const deployment = find(objects, 'Deployment', `botwire-${c}`);
      expect(deployment, c).to.be.an('object');
      const { pod, container } = podOf(deployment);
      expect(container.args, c).to.deep.equal([c]);
      expect(container.readinessProbe, `${c} readiness`).to.be.an('object');
      expect(container.livenessProbe, `${c} liveness`).to.be.an('object');
      expect(container.resources.requests, c).to.include.keys('cpu', 'memory');
      expect(container.resources.limits, c).to.include.keys('memory');
      expect(pod.securityContext.runAsNonRoot, c).to.equal(true);
      expect(container.securityContext.readOnlyRootFilesystem, c).to.equal(true);
      expect(container.securityContext.allowPrivilegeEscalation, c).to.equal(false);
      // The read-only root needs a writable /tmp: tsx's cache and the health file.
      expect(
        container.volumeMounts.map((m: Any) => m.mountPath),
        c,
      ).to.include('/tmp');
      expect(settings.HEALTH_FILE).to.match(/^\/tmp\//);
      const selector = deployment.spec.selector.matchLabels;
      expect(deployment.spec.template.metadata.labels).to.include(selector);
    }
  });

  it('when a pod is told to stop, then its grace period outlasts its drain, and api turns unready before it stops serving', () => {
    const config = loadConfig(envOf(secretKeys), 'api');
    for (const c of COMPONENTS) {
      const { pod, container } = podOf(find(objects, 'Deployment', `botwire-${c}`));
      const drainMs = config.shutdownTimeoutMs + (c === 'api' ? config.api.drainDelayMs : 0);
      expect(pod.terminationGracePeriodSeconds * 1000, c).to.be.greaterThan(drainMs);
      if (c === 'api') {
        const probe = container.readinessProbe;
        expect(probe.httpGet.path).to.equal('/readyz');
        expect(probe.periodSeconds * probe.failureThreshold * 1000).to.be.lessThan(
          config.api.drainDelayMs,
        );
      } else {
        // sh, not Node: a probe every 10 to 15 s starts no second Node in the pod.
        expect(container.readinessProbe.exec.command).to.deep.equal([
          'sh',
          'scripts/healthcheck.sh',
        ]);
        expect(container.livenessProbe.exec.command).to.deep.equal([
          'sh',
          'scripts/healthcheck.sh',
          '--live',
        ]);
      }
    }
  });

  it('when settings are passed, then src/config.ts knows every name and accepts what each component gets', () => {
    const known = new Set(Object.keys(SETTINGS));
    expect(
      Object.keys(settings).filter((k) => !known.has(k)),
      'ConfigMap',
    ).to.deep.equal([]);
    expect(
      secretKeys.filter((k) => !known.has(k)),
      'Secret',
    ).to.deep.equal([]);
    const containers = objects
      .filter((o) => o.kind === 'Deployment')
      .flatMap((o: Any) => [
        ...o.spec.template.spec.containers,
        ...(o.spec.template.spec.initContainers ?? []),
      ]);
    for (const container of containers) {
      const object = { kind: 'container', metadata: { name: container.args[0] } } as K8sObject;
      const names = (container.env ?? []).map((e: Any) => e.name as string);
      expect(
        names.filter((n: string) => !known.has(n)),
        idOf(object),
      ).to.deep.equal([]);
      for (const e of container.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        // A key the template leaves out is one the Secret may hold: optional.
        if (ref && !ref.optional)
          expect(secretKeys, `${idOf(object)} ${e.name}`).to.include(ref.key);
      }
      expect(container.envFrom).to.deep.equal([
        { configMapRef: { name: settingsMap.metadata.name } },
      ]);
      const component = container.args[0] as string;
      if (component !== 'migrate') {
        expect(() => loadConfig(envOf(names), component), idOf(object)).not.to.throw();
      }
    }
  });

  it('when uploads are stored, then api and indexer share one ReadWriteMany volume at STORAGE_DIR', () => {
    const claim = find(objects, 'PersistentVolumeClaim', 'botwire-storage');
    expect(claim.spec.accessModes).to.deep.equal(['ReadWriteMany']);
    for (const c of COMPONENTS) {
      const { pod, container } = podOf(find(objects, 'Deployment', `botwire-${c}`));
      const volume = pod.volumes.find(
        (v: Any) => v.persistentVolumeClaim?.claimName === 'botwire-storage',
      );
      const mount = volume && container.volumeMounts.find((m: Any) => m.name === volume.name);
      if (c === 'api' || c === 'indexer')
        expect(mount?.mountPath, c).to.equal(settings.STORAGE_DIR);
      else expect(volume, c).to.equal(undefined);
    }
  });

  it('when releases are applied, then every pod migrates before its component starts (no Job to delete and order by hand), and the api Service and a disruption budget per component come with them', () => {
    // A Job cannot be changed once made: applied again with a new image it was refused.
    expect(objects.filter((o) => o.kind === 'Job')).to.deep.equal([]);
    for (const c of COMPONENTS) {
      const { pod, container } = podOf(find(objects, 'Deployment', `botwire-${c}`));
      expect(
        pod.initContainers.map((i: Any) => [i.name, i.image, i.args]),
        c,
      ).to.deep.equal([['migrate', container.image, ['migrate']]]);
      const [init] = pod.initContainers;
      expect(init.securityContext, c).to.deep.equal(container.securityContext);
      expect(
        init.volumeMounts.map((m: Any) => m.mountPath),
        c,
      ).to.deep.equal(['/tmp']);
    }
    const service = find(objects, 'Service', 'botwire-api');
    expect(service.spec.selector['app.kubernetes.io/component']).to.equal('api');
    for (const c of COMPONENTS) {
      const budget = find(objects, 'PodDisruptionBudget', `botwire-${c}`);
      expect(budget?.spec.selector.matchLabels['app.kubernetes.io/component'], c).to.equal(c);
    }
  });

  it('when Redis has a password, then every Deployment reads REDIS_URL from the Secret where it holds one, before the ConfigMap', () => {
    for (const object of objects.filter((o) => o.kind === 'Deployment')) {
      const { container } = podOf(object);
      // `env` wins over `envFrom`; an optional key the Secret lacks sets nothing.
      const redis = (container.env ?? []).find((e: Any) => e.name === 'REDIS_URL');
      expect(redis?.valueFrom?.secretKeyRef, idOf(object)).to.deep.equal({
        name: 'botwire-secrets',
        key: 'REDIS_URL',
        optional: true,
      });
    }
  });

  it('when a node is drained or lost, then every user-facing worker keeps a pod reading its topic, and each component’s pods spread over nodes', () => {
    for (const c of COMPONENTS) {
      const deployment = find(objects, 'Deployment', `botwire-${c}`);
      const budget = find(objects, 'PodDisruptionBudget', `botwire-${c}`);
      const least =
        c === 'api'
          ? deployment.spec.replicas
          : find(objects, 'ScaledObject', `botwire-${c}`).spec.minReplicaCount;
      // What the budget lets go at once, out of the fewest pods there are.
      const mayGo = budget.spec.maxUnavailable ?? least - (budget.spec.minAvailable as number);
      if (c === 'indexer') expect(least, c).to.be.at.least(1);
      else expect(least - mayGo, c).to.be.at.least(1);
      const spread = deployment.spec.template.spec.topologySpreadConstraints;
      expect(spread, c).to.deep.equal([
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: {
            matchLabels: {
              'app.kubernetes.io/name': 'botwire',
              'app.kubernetes.io/component': c,
            },
          },
        },
      ]);
    }
  });

  it('when a release is deleted (kubectl delete -k), then the namespace, with the hand-made Secret and the uploads, is not part of it', () => {
    expect(objects.filter((o) => o.kind === 'Namespace')).to.deep.equal([]);
    const [namespace] = readObjects(join(BASE, 'namespace.yaml'));
    expect(namespace?.metadata.name).to.equal('botwire');
    expect(objects.every((o) => o.metadata.namespace === 'botwire')).to.equal(true);
  });

  it('when KEDA scales a worker, then it reads the lag of that topic’s real partition streams and consumer group', () => {
    expectScalersOnTheCodesKeys(objects, settings, {
      streams: 'redis-streams',
      list: 'redis',
      address: (t) => t.metadata.address,
      expected: new URL(settings.REDIS_URL!).host,
    });
  });

  it('when KEDA scales the indexer on waiting jobs, then it reads the list BullMQ really keeps them in', async () => {
    const lists = find(objects, 'ScaledObject', 'botwire-indexer').spec.triggers.filter(
      (t: Any) => t.type === 'redis',
    );
    expect(lists.map((t: Any) => t.metadata.listName)).to.deep.equal([
      `${jobsPrefix(settings.STREAM_PREFIX!)}:${QUEUE}:wait`,
    ]);
    const prefix = uniquePrefix();
    const queue = new Queue(QUEUE, { connection: { url: REDIS_URL }, prefix: jobsPrefix(prefix) });
    const redis = connectRedis();
    try {
      await queue.add('job', { job_id: 'j1' });
      expect(await redis.type(`${jobsPrefix(prefix)}:${QUEUE}:wait`)).to.equal('list');
      expect(await redis.llen(`${jobsPrefix(prefix)}:${QUEUE}:wait`)).to.equal(1);
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });

  it('when the example overlay is rendered with kubectl, then it is valid and names a real image', async function () {
    if (!(await hasKubectl())) {
      // The overlay's patches need kustomize itself; kubectl is not on a fresh machine.
      this.skip();
    }
    const rendered = await kubectlKustomize(OVERLAY);
    for (const object of rendered) await validateObject(object);
    const images = rendered
      .filter((o) => o.kind === 'Deployment')
      .flatMap((o: Any) =>
        [...o.spec.template.spec.containers, ...o.spec.template.spec.initContainers].map(
          (c: Any) => c.image as string,
        ),
      );
    expect(images).to.have.length(COMPONENTS.length * 2);
    for (const image of images) expect(image).to.equal('registry.example.com/botwire:0.1.0');
    expect(find(rendered, 'Deployment', 'botwire-api').spec.replicas).to.equal(3);
    expect(settingsOf(rendered).data.STREAM_PREFIX).to.equal('botwire');
  });
  it('when the redis-cluster overlay is rendered with kubectl, then it is valid, REDIS_URL names the cluster, and KEDA’s cluster scalers read the code’s keys on its seed nodes', async function () {
    if (!(await hasKubectl())) {
      // The overlay's patches need kustomize itself; kubectl is not on a fresh machine.
      this.skip();
    }
    const rendered = await kubectlKustomize(CLUSTER_OVERLAY);
    for (const object of rendered) await validateObject(object);
    const data = settingsOf(rendered).data as Record<string, string>;
    const target = parseRedisUrl(data.REDIS_URL!);
    expect(target.cluster, data.REDIS_URL).to.equal(true);
    const config = loadConfig({ ...envOf(secretKeys), ...data }, 'api');
    expect(config.redisUrl).to.equal(data.REDIS_URL);
    expect(config.api.replicaWait.replicas).to.equal(1);
    expectScalersOnTheCodesKeys(rendered, data, {
      streams: 'redis-cluster-streams',
      list: 'redis-cluster',
      address: (t) => t.metadata.addresses,
      expected: target.nodes.map((n) => `${n.host}:${n.port}`).join(','),
    });
    // Its settings are the overlay's, under a name of their own: applying it rolls them out.
    expect(settingsOf(rendered).metadata.name).not.to.equal(settingsMap.metadata.name);
    // Everything else is the base's, unchanged.
    const byId = (list: K8sObject[]) =>
      new Set(list.map((o) => idOf(o).replace(/botwire-settings-[a-z0-9]{10}$/, 'settings')));
    expect(byId(rendered)).to.deep.equal(byId(objects));
  });
});

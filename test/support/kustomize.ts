/**
 * Renders deploy/k8s for the tests. `renderBase` resolves the base kustomization itself (it uses
 * only `resources`, `namespace` and an env-file `configMapGenerator`, which is all this needs to
 * know), so the manifests are
 * checked on any machine; `kubectlKustomize` runs the real `kubectl kustomize` where kubectl is
 * installed (it is not on a fresh machine), for the overlays and to check `renderBase` against.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const exec = promisify(execFile);

/** A Kubernetes object as rendered (typed loosely: the tests look into it). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Kinds that live outside namespaces, among those the manifests use. */
const CLUSTER_SCOPED = new Set(['Namespace']);

/** Every YAML document of a file, empty ones left out. */
export function readObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** A `configMapGenerator` entry, as far as the base uses one. */
interface ConfigMapGenerator {
  name: string;
  envs?: string[];
  options?: { labels?: Record<string, string> };
}

/** An env file as kustomize reads it: `KEY=value` lines; blank lines and `#` comments skipped. */
function readEnvFile(file: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`${file}: "${line}" is not KEY=value`);
    data[line.slice(0, at)] = line.slice(at + 1);
  }
  return data;
}

/**
 * Kustomize's name suffix of a generated ConfigMap (kustomize/api/hasher): the first ten hex
 * digits of the SHA-256 of Go's JSON of `{data, kind, name}`, with 0, 1, 3, a and e mapped to
 * g, h, k, m and t. kyaml looks the name up as one field called "metadata/name", finds none, and
 * hashes an empty name; Go escapes <, > and & in JSON.
 */
export function configMapHash(data: Record<string, string>): string {
  const sorted = Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, data[k]]),
  );
  const json = JSON.stringify({ data: sorted, kind: 'ConfigMap', name: '' }).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  const map: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((c) => map[c] ?? c).join('');
}

/** The ConfigMap a generator makes, named with its content's hash. */
function generate(dir: string, generator: ConfigMapGenerator): K8sObject {
  const data = Object.assign({}, ...(generator.envs ?? []).map((f) => readEnvFile(join(dir, f))));
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${generator.name}-${configMapHash(data)}`,
      ...(generator.options?.labels ? { labels: generator.options.labels } : {}),
    },
    data,
  };
}

/** `value` with every ConfigMap reference (`configMapRef`, `configMapKeyRef`, `configMap`) renamed. */
function renameConfigMaps(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameConfigMaps(v, names));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const ref = v as { name?: string } | null;
    out[key] =
      ['configMapRef', 'configMapKeyRef', 'configMap'].includes(key) &&
      ref?.name &&
      names.has(ref.name)
        ? { ...ref, name: names.get(ref.name) }
        : renameConfigMaps(v, names);
  }
  return out;
}

/**
 * The base kustomization's objects: its resources and generated ConfigMaps (named by their
 * content's hash, every reference to them renamed), each namespaced object in its namespace.
 */
export function renderBase(dir: string): K8sObject[] {
  const [kustomization] = readObjects(join(dir, 'kustomization.yaml')) as unknown as {
    resources?: string[];
    namespace?: string;
    configMapGenerator?: ConfigMapGenerator[];
    [key: string]: unknown;
  }[];
  if (!kustomization) throw new Error(`${dir}: no kustomization.yaml`);
  const known = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'configMapGenerator']);
  const unknown = Object.keys(kustomization).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    // Anything more is left to kubectl; this resolver must not pretend to know it.
    throw new Error(`renderBase does not resolve ${unknown.join(', ')} (${dir})`);
  }
  const generated = (kustomization.configMapGenerator ?? []).map((g) => {
    const known = new Set(['name', 'envs', 'options']);
    const extra = Object.keys(g).filter((key) => !known.has(key));
    if (extra.length > 0) throw new Error(`renderBase does not resolve ${extra.join(', ')}`);
    return { from: g.name, object: generate(dir, g) };
  });
  const names = new Map(generated.map(({ from, object }) => [from, object.metadata.name]));
  return [
    ...generated.map(({ object }) => object),
    ...(kustomization.resources ?? []).flatMap((resource) =>
      readObjects(join(dir, resource)).map(
        (object) => renameConfigMaps(object, names) as K8sObject,
      ),
    ),
  ].map((object) =>
    kustomization.namespace && !CLUSTER_SCOPED.has(object.kind)
      ? { ...object, metadata: { ...object.metadata, namespace: kustomization.namespace } }
      : object,
  );
}

/** Whether `kubectl` is on PATH. */
export async function hasKubectl(): Promise<boolean> {
  try {
    await exec('kubectl', ['version', '--client'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** `kubectl kustomize <dir>`, parsed. */
export async function kubectlKustomize(dir: string): Promise<K8sObject[]> {
  const { stdout } = await exec('kubectl', ['kustomize', dir], {
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

/** `<kind>/<namespace>/<name>`: how the tests find and compare objects. */
export function idOf(object: K8sObject): string {
  return `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/**
 * Validates an object against its Kubernetes (or KEDA) schema with `kubernetes-models`; throws
 * naming the object and the first problem. Kinds it has no model for are an error too.
 */
export async function validateObject(object: K8sObject): Promise<void> {
  const { apiVersion, kind } = object;
  const module = apiVersion.startsWith('keda.sh/')
    ? `@kubernetes-models/keda/${apiVersion}`
    : `kubernetes-models/${apiVersion}`;
  let models: Record<string, new (data: unknown) => { validate(): void }>;
  try {
    models = (await import(module)) as typeof models;
  } catch {
    throw new Error(`${idOf(object)}: no schema for ${apiVersion}`);
  }
  const Model = models[kind];
  if (!Model) throw new Error(`${idOf(object)}: no schema for ${apiVersion} ${kind}`);
  try {
    new Model(object).validate();
  } catch (error) {
    throw new Error(`${idOf(object)}: ${(error as Error).message}`);
  }
}

/** The folder of deploy/k8s (from the project root). */
export function k8sDir(root: string): string {
  return join(root, 'deploy', 'k8s');
}

/**
 * Renders deploy/k8s for the tests. `renderBase` resolves the base kustomization itself (it uses
 * only `resources` and `namespace`, which is all this needs to know), so the manifests are
 * checked on any machine; `kubectlKustomize` runs the real `kubectl kustomize` where kubectl is
 * installed (it is not on a fresh machine), for the overlays and to check `renderBase` against.
 */
import { execFile } from 'node:child_process';
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

/** The base kustomization's objects: its resources, each namespaced object in its namespace. */
export function renderBase(dir: string): K8sObject[] {
  const [kustomization] = readObjects(join(dir, 'kustomization.yaml')) as unknown as {
    resources?: string[];
    namespace?: string;
    [key: string]: unknown;
  }[];
  if (!kustomization) throw new Error(`${dir}: no kustomization.yaml`);
  const known = new Set(['apiVersion', 'kind', 'resources', 'namespace']);
  const unknown = Object.keys(kustomization).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    // Anything more is left to kubectl; this resolver must not pretend to know it.
    throw new Error(`renderBase does not resolve ${unknown.join(', ')} (${dir})`);
  }
  return (kustomization.resources ?? []).flatMap((resource) =>
    readObjects(join(dir, resource)).map((object) =>
      kustomization.namespace && !CLUSTER_SCOPED.has(object.kind)
        ? { ...object, metadata: { ...object.metadata, namespace: kustomization.namespace } }
        : object,
    ),
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

/**
 * Shown while a published version is open read-only: back to the draft, or publish this version
 * again (rollback) after a confirmation that says how many conversations it strands.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiError } from '../../api/api-error.ts';
import type { Impact, VersionDetail } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { getImpact, republishVersion } from './flow-api.ts';
import { ImpactNote } from './impact-note.tsx';
import { useMay } from '../../api/permissions.ts';

interface VersionBannerProps {
  appId: string;
  version: VersionDetail;
  onBack: () => void;
}

export function VersionBanner({ appId, version, onBack }: VersionBannerProps) {
  const may = useMay();
  const queryClient = useQueryClient();
  const [impact, setImpact] = useState<Impact | null>(null);
  const [done, setDone] = useState(false);
  const check = useMutation<Impact, ApiError>({
    mutationFn: () => getImpact(appId, version.version),
    onSuccess: setImpact,
  });
  const rollback = useMutation<VersionDetail, ApiError>({
    mutationFn: () => republishVersion(appId, version.version),
    onSuccess: () => {
      setImpact(null);
      setDone(true);
      void queryClient.invalidateQueries({ queryKey: ['bot-flow', appId] });
      void queryClient.invalidateQueries({ queryKey: ['flow-versions', appId] });
    },
  });
  const error = check.error ?? rollback.error;
  return (
    <div className="version-banner" role="region" aria-label={`Version ${version.version}`}>
      <p>
        Viewing version {version.version} (read-only), by {version.author},{' '}
        {new Date(version.created_at).toLocaleString()}
        {version.current || done ? ' — live now' : ''}.
      </p>
      <button type="button" onClick={onBack}>
        Back to the draft
      </button>
      {may('POST /v2/bots/:app_id/flow/versions/:version/publish') && (
        <button
          type="button"
          className="primary"
          data-route="POST /v2/bots/:app_id/flow/versions/:version/publish"
          disabled={version.current || done || check.isPending}
          onClick={() => check.mutate()}
        >
          Publish this version
        </button>
      )}
      {done && <span role="status">Version {version.version} is live again.</span>}
      {error && (
        <span role="alert" className="problem-text">
          {error.message} ({error.code})
        </span>
      )}
      {impact && (
        <ConfirmDialog
          title={`Publish version ${version.version} again?`}
          confirmLabel={`Publish version ${version.version}`}
          busy={rollback.isPending}
          onCancel={() => setImpact(null)}
          onConfirm={() => rollback.mutate()}
        >
          <p>New turns use version {version.version} at once. Your draft stays as it is.</p>
          <ImpactNote impact={impact} />
        </ConfirmDialog>
      )}
    </div>
  );
}

/** Registers a Telegram channel's webhook with one button, and shows what Telegram answered. */
import { useRegisterWebhook } from '../../api/bots.ts';
import type { ChannelView } from '../../api/types.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

export function WebhookButton({ appId, channel }: { appId: string; channel: ChannelView }) {
  const register = useRegisterWebhook(appId);
  return (
    <div className="webhook" data-route="POST /v2/bots/:app_id/channels/:channel_id/webhook">
      <button
        type="button"
        disabled={register.isPending}
        onClick={() => register.mutate(channel.id)}
      >
        {register.isPending ? 'Registering…' : 'Register Telegram webhook'}
      </button>
      <div aria-live="polite">
        {register.data && (
          <p role="status" className="ok">
            Webhook registered: Telegram will call <code>{register.data.url}</code>
            {register.data.telegram?.description ? ` (${register.data.telegram.description})` : ''}.
          </p>
        )}
        {register.error && (
          <ErrorAlert error={register.error} what="Could not register the webhook." />
        )}
      </div>
    </div>
  );
}

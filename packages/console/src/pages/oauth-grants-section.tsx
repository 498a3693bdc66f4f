import type { OAuthGrantPage } from '../api/resources';
import { ago, when } from '../components/format';
import { Empty, ErrorPanel, Load } from '../components/states';
import { ConfirmButton } from '../components/ui';
import { useSession } from '../session';
import { useAction, useResource } from '../use-resource';

/** The MCP hosts the account connected through OAuth: each client, its scopes, its last use; revoking cuts it off at its next request. */
export function OAuthGrants() {
  const { api } = useSession();
  const grants = useResource(() => api.get<OAuthGrantPage>('/v1/oauth/grants', { limit: 100 }), []);
  const action = useAction();
  const revoke = (id: string) => action.run(() => api.del(`/v1/oauth/grants/${id}`).then(() => true)).then((ok) => ok && grants.reload());
  return (
    <>
      {action.error && <ErrorPanel error={action.error} compact />}
      <Load resource={grants} label="Loading connected hosts…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No MCP host is connected through OAuth." />
          ) : (
            <table class="table compact" aria-label="Connected hosts">
              <thead><tr><th scope="col">Client</th><th scope="col">Sends back to</th><th scope="col">Scopes</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {page.data.map((g) => (
                  <tr key={g.id}>
                    <td>{g.client_name ?? <span class="muted">unnamed</span>}{g.agent_id && <span class="muted small"> (one agent)</span>}</td>
                    <td><code>{g.redirect_hosts.join(', ')}</code></td>
                    <td>{g.scopes.join(', ')}</td>
                    <td>{when(g.created_at)}</td>
                    <td>{ago(g.last_used_at)}</td>
                    <td class="actions"><ConfirmButton label="Revoke" confirmLabel="Revoke access" onConfirm={() => revoke(g.id)} disabled={action.busy} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Load>
    </>
  );
}

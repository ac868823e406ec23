import { Type } from '@sinclair/typebox'
import { describedPattern } from '../schema-helpers.js'

/**
 * What a bearer token may hold: printable ASCII without spaces, so it travels unchanged in an
 * `Authorization: Bearer` header (RFC 6750's token68 is a subset). Empty never reaches it: an
 * empty variable means unset.
 */
export const TOKEN_PATTERN = describedPattern('^[!-~]*$', 'printable ASCII characters without spaces')

/** Access control and transport security of the HTTP server. */
export const securityEnv = {
  METRICS_AUTH_TOKEN: Type.String({
    default: '',
    pattern: TOKEN_PATTERN,
    description:
      'Bearer token required on every endpoint except `/healthz` and `/readyz` (`Authorization: Bearer <token>`). Empty: no token.',
  }),
  METRICS_AUTH_TOKEN_FILE: Type.String({
    default: '',
    description:
      'File holding the bearer token (a mounted Kubernetes secret); surrounding whitespace is ignored, and a changed file is picked up within `SECURITY_FILES_RELOAD_SECONDS`. Not together with `METRICS_AUTH_TOKEN`.',
  }),
  TLS_CERT_FILE: Type.String({
    default: '',
    description:
      'PEM certificate (chain: leaf first) to serve HTTPS with; needs `TLS_KEY_FILE`. Empty: plain HTTP.',
  }),
  TLS_KEY_FILE: Type.String({
    default: '',
    description: 'PEM private key of `TLS_CERT_FILE` (unencrypted; may be the same file).',
  }),
  TLS_CLIENT_CA_FILE: Type.String({
    default: '',
    description:
      'PEM CA certificate(s): when set, every client must present a certificate they signed (mutual TLS).',
  }),
  WEB_CONFIG_FILE: Type.String({
    default: '',
    description:
      'Prometheus web configuration file (the exporter-toolkit format every official exporter reads, also `--web.config.file`): `tls_server_config`, `basic_auth_users` (bcrypt), `http_server_config.headers`. Read at start; unknown keys are refused. TLS and authentication each come from the file or from the variables above, not both. See docs/security.md.',
  }),
  SECURITY_FILES_RELOAD_SECONDS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 86400,
    description:
      'How often the token and TLS files (those the web configuration file names included) are read again; a changed file takes effect for new connections without a restart (0: read at start only).',
  }),
}

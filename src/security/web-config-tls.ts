import { isAbsolute, join } from 'node:path'
import type { SecureVersion } from 'node:tls'
import type { TlsFiles, TlsPolicy } from './tls-material.js'
import type { StrictReader } from './web-config-reader.js'

/** Go's names (crypto/tls) as the file gives them, and OpenSSL's for Node. */
const VERSIONS: Readonly<Record<string, SecureVersion>> = {
  TLS10: 'TLSv1',
  TLS11: 'TLSv1.1',
  TLS12: 'TLSv1.2',
  TLS13: 'TLSv1.3',
}

/** Go's `tls.CipherSuites()` names, as the file gives them, with OpenSSL's. */
const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  // TLS 1.3's own suites: Go ignores them in cipher_suites, and so does this (below).
  TLS_AES_128_GCM_SHA256: '',
  TLS_AES_256_GCM_SHA384: '',
  TLS_CHACHA20_POLY1305_SHA256: '',
}

/**
 * cipher_suites limits TLS 1.2 and older only (Go's rule). Node takes TLS 1.3's suites from the
 * same string and would turn TLS 1.3 off without them, so its defaults are always appended.
 */
const TLS13_SUITES = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256'

const CURVES: Readonly<Record<string, string>> = {
  CurveP256: 'P-256',
  CurveP384: 'P-384',
  CurveP521: 'P-521',
  X25519: 'X25519',
}

/**
 * The client_auth_type values served. exporter-toolkit's documentation calls the other three
 * (RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven) insecure: each lets a client
 * in without a certificate its CA signed, so they are refused rather than imitated.
 */
const CLIENT_AUTH_TYPES = ['NoClientCert', 'RequireAndVerifyClientCert'] as const
const INSECURE_CLIENT_AUTH = [
  'RequestClientCert',
  'RequireAnyClientCert',
  'RequireClientCert',
  'VerifyClientCertIfGiven',
]

const TLS_KEYS = [
  'cert_file',
  'key_file',
  'client_ca_file',
  'client_auth_type',
  'min_version',
  'max_version',
  'cipher_suites',
  'prefer_server_cipher_suites',
  'curve_preferences',
]

const UNSUPPORTED_TLS_KEYS = {
  cert: 'inline PEM is not supported; give the certificate in a file with cert_file',
  key: 'inline PEM is not supported; give the key in a file with key_file',
  client_ca: 'inline PEM is not supported; give the CA certificates in a file with client_ca_file',
  client_allowed_sans:
    'not supported by objstore-exporter; use a client CA that signs only the allowed clients',
}

/**
 * Whether a `tls_server_config` section turns TLS on: any of its files or a client auth type set
 * (exporter-toolkit's rule; versions or ciphers alone do not). The health check asks it too.
 */
export function setsTls(section: unknown): boolean {
  if (typeof section !== 'object' || section === null) return false
  const keys = section as Record<string, unknown>
  return ['cert_file', 'key_file', 'client_ca_file', 'client_auth_type'].some(
    (key) => keys[key] !== undefined && keys[key] !== null && keys[key] !== '',
  )
}

/**
 * The `tls_server_config` section as the TLS files and policy the exporter serves with, or
 * undefined when it sets nothing (plain HTTP, as exporter-toolkit decides). Relative paths are
 * taken from the file's folder, as exporter-toolkit takes them.
 */
export function readTlsSection(
  reader: StrictReader,
  value: unknown,
  webConfigFile: string,
  folder: string,
): TlsFiles | undefined {
  const section = reader.mapping(value, 'tls_server_config', TLS_KEYS, UNSUPPORTED_TLS_KEYS)
  const at = (key: string) => `tls_server_config.${key}`
  const path = (key: string) => {
    const text = reader.string(section[key], at(key))
    return text === undefined || isAbsolute(text) ? text : join(folder, text)
  }
  const certFile = path('cert_file')
  const keyFile = path('key_file')
  const clientCaFile = path('client_ca_file')
  const clientAuthText = reader.string(section.client_auth_type, at('client_auth_type'))
  if (clientAuthText !== undefined && INSECURE_CLIENT_AUTH.includes(clientAuthText)) {
    reader.refuse(
      at('client_auth_type'),
      `${clientAuthText} lets clients in without a verified certificate and is not supported; use RequireAndVerifyClientCert (with client_ca_file) or NoClientCert`,
    )
  }
  const clientAuth = INSECURE_CLIENT_AUTH.includes(clientAuthText ?? '')
    ? undefined
    : reader.choice(section.client_auth_type, at('client_auth_type'), CLIENT_AUTH_TYPES)
  const policy = readPolicy(reader, section)
  if (!setsTls(section)) return undefined
  if (certFile === undefined) reader.refuse(at('cert_file'), 'required when tls_server_config sets anything')
  if (keyFile === undefined) reader.refuse(at('key_file'), 'required when tls_server_config sets anything')
  const verify = clientAuth === 'RequireAndVerifyClientCert'
  if (verify && clientCaFile === undefined)
    reader.refuse(at('client_ca_file'), 'required when client_auth_type is RequireAndVerifyClientCert')
  if (!verify && clientCaFile !== undefined)
    reader.refuse(at('client_auth_type'), 'must be RequireAndVerifyClientCert when client_ca_file is set')
  return {
    certFile: certFile ?? '',
    keyFile: keyFile ?? '',
    clientCaFile: verify ? (clientCaFile ?? '') : '',
    names: {
      cert: at('cert_file'),
      key: at('key_file'),
      clientCa: at('client_ca_file'),
      within: `WEB_CONFIG_FILE="${webConfigFile}": `,
    },
    policy,
  }
}

/** Versions (TLS 1.2 to 1.3 unless set, exporter-toolkit's defaults), ciphers, curves. */
function readPolicy(reader: StrictReader, section: Record<string, unknown>): TlsPolicy {
  const at = (key: string) => `tls_server_config.${key}`
  const versionNames = Object.keys(VERSIONS)
  const min = reader.choice(section.min_version, at('min_version'), versionNames) ?? 'TLS12'
  const max = reader.choice(section.max_version, at('max_version'), versionNames) ?? 'TLS13'
  if (min > max) reader.refuse(at('min_version'), `${min} is above max_version ${max}`)
  const policy: TlsPolicy = { minVersion: VERSIONS[min], maxVersion: VERSIONS[max] }
  const suites = reader.choices(section.cipher_suites, at('cipher_suites'), Object.keys(CIPHER_SUITES))
  const older = (suites ?? []).map((name) => CIPHER_SUITES[name]).filter((name) => name !== '')
  if (older.length > 0) policy.ciphers = [...older, TLS13_SUITES].join(':')
  const curves = reader.choices(section.curve_preferences, at('curve_preferences'), Object.keys(CURVES))
  if (curves && curves.length > 0) policy.ecdhCurve = curves.map((name) => CURVES[name]).join(':')
  // Go's default is the server's order; Node's is the client's.
  policy.honorCipherOrder =
    reader.boolean(section.prefer_server_cipher_suites, at('prefer_server_cipher_suites')) ?? true
  return policy
}

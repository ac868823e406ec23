/**
 * The exporter's port when PORT is unset (in the exporter range 9100-9999). Its own module, with
 * no import, so the image's health check (src/healthcheck.ts) reads it without loading the
 * configuration.
 */
export const DEFAULT_PORT = 9786

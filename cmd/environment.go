package cmd

import "github.com/spf13/cobra"

// environmentHelp lists every environment variable invx reads. A test
// (TestEnvironmentHelpListsEveryVariable) fails when the code reads an
// INVX_*, OPENAI_*, ANTHROPIC_*, OLLAMA_* or OTEL_* variable this text does
// not name.
const environmentHelp = `invx reads these environment variables. A flag given on the command line
wins over its variable.

invx
  INVX_DB        the database, as --db: a SQLite file or a postgres:// URL
                 (default invx.db)
  INVX_TENANT    the tenant, as --tenant (default "default")

Providers (API keys come from the environment only; invx never logs or
stores them)
  OPENAI_API_KEY     the key for --provider openai; not needed for a local
                     OpenAI-compatible server (Ollama, vLLM, llama.cpp,
                     LM Studio)
  OPENAI_BASE_URL    the endpoint for --provider openai, as --base-url
                     (default https://api.openai.com/v1/)
  ANTHROPIC_API_KEY  the key for --provider anthropic
  OLLAMA_HOST        the server for --provider ollama, as --base-url
                     (default http://localhost:11434)
  No other OPENAI_* or ANTHROPIC_* variable is read (OPENAI_ORG_ID,
  OPENAI_PROJECT_ID, ANTHROPIC_BASE_URL, ...): only flags change where a
  request goes.

Traces (OpenTelemetry, off unless one of the first three is set)
  OTEL_EXPORTER_OTLP_ENDPOINT         OTLP/HTTP base URL; traces go to
                                      /v1/traces under it
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  full URL for traces (wins over the above)
  OTEL_TRACES_EXPORTER                otlp turns traces on, none off
  OTEL_SDK_DISABLED                   true turns traces off
  OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
                                      http/protobuf only (other values are
                                      an error)
  OTEL_SERVICE_NAME                   service name (default invx)
  OTEL_RESOURCE_ATTRIBUTES            extra resource attributes, k=v,...
  OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_HEADERS
                                      headers for the collector (sent by the
                                      SDK); their values are secrets: invx
                                      scrubs them from everything it prints
                                      or stores
  The OpenTelemetry SDK also honours its own standard variables:
  OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT,
  _COMPRESSION, _CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY, _INSECURE;
  OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; OTEL_BSP_* (batching);
  OTEL_SPAN_*_LIMIT and OTEL_ATTRIBUTE_*_LIMIT.

Standard
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY  proxies for provider calls, OTLP
                                     export and outbox webhooks
  SSL_CERT_FILE, SSL_CERT_DIR        extra trusted CA certificates
  TMPDIR                             where invx eval makes its throwaway
                                     databases (unless --keep-db)
  USER                               who acts in invx review accept,
                                     dismiss and correct (unless --actor)

Set by invx for the programs it runs (not read by invx)
  --provider command: INVX_JOB_KEY, INVX_TENANT, INVX_ATTEMPT,
  INVX_SCHEMA_VERSION, INVX_FEEDBACK (on a repair re-ask).
  outbox deliver --command: INVX_EVENT_KEY, INVX_EVENT_KIND, INVX_TENANT,
  INVX_JOB_KEY.
  Both programs also inherit invx's own environment.`

func newEnvironmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "The environment variables invx reads",
		Long:  environmentHelp,
	}
}

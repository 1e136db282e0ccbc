{{- define "n8n-ceiling.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "n8n-ceiling.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "n8n-ceiling.selectorLabels" -}}
app.kubernetes.io/name: {{ include "n8n-ceiling.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "n8n-ceiling.labels" -}}
{{ include "n8n-ceiling.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "n8n-ceiling.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "n8n-ceiling.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The namespace whose pods are watched; empty when all are. */}}
{{- define "n8n-ceiling.watchNamespace" -}}
{{- if not .Values.watch.allNamespaces -}}
{{- default .Release.Namespace .Values.watch.namespace -}}
{{- end -}}
{{- end -}}

package kube

import (
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// tokenFile is where Kubernetes mounts a pod's service-account token.
const tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// InPod reports whether this process runs in a Kubernetes pod: the API
// server's address is in its environment and a service-account token is
// mounted.
func InPod() bool {
	if os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		return false
	}
	_, err := os.Stat(tokenFile)
	return err == nil
}

// Connect builds a client: from KUBECONFIG when it is set, else the pod's
// service account inside a pod, else ~/.kube/config.
func Connect() (kubernetes.Interface, error) {
	cfg, err := restConfig()
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "n8n-ceiling-exporter"
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return c, nil
}

func restConfig() (*rest.Config, error) {
	if os.Getenv("KUBECONFIG") == "" && InPod() {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster config: %w", err)
		}
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig (KUBECONFIG or ~/.kube/config): %w", err)
	}
	return cfg, nil
}

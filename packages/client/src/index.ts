// @ppx-provider/client: see README.md. The modules are added by issue 28.
export const CLIENT_VERSION = '0.1.0';

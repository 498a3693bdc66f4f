/* global window, SwaggerUIBundle */
// Starts Swagger UI on this service's own document. A key typed into "Authorize" lives in this
// page only (never localStorage); no third-party validator badge.
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false, validatorUrl: null });

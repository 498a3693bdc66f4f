/* global window, SwaggerUIBundle */
// Starts Swagger UI on this service's own document.
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });

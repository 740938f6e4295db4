// What the page's client keeps in its store (sessionStorage): the session id (a bearer
// secret: never shown or logged whole), the load balancer's routing key, the kept answers.
export const SESSION_KEY = "remote-modal.session";
export const AFFINITY_KEY = "remote-modal.affinity";
export const ANSWERS_KEY = "remote-modal.answers";

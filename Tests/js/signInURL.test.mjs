import { test } from "node:test";
import assert from "node:assert/strict";
import { unsafeSignInURL } from "../../web/js/signInURL.js";

test("a sign-in address opens only over https, or http to this machine", () => {
  for (const good of ["https://idp.example/authorize?state=s", "http://127.0.0.1:9000/a", "http://localhost/a", "http://[::1]:8080/a"]) {
    assert.equal(unsafeSignInURL(good), null, good);
  }
  for (const bad of ["javascript:alert(sessionStorage['remote-modal.session'])", "data:text/html,<script>1</script>",
                     "file:///etc/passwd", "http://idp.example/authorize", "myapp://cb", "not a url", " JavaScript:alert(1)",
                     "https://bank.example@evil.example/authorize", "https://user:pw@idp.example/a"]) {
    assert.match(unsafeSignInURL(bad) ?? "", /sign-in address/, bad);
  }
});

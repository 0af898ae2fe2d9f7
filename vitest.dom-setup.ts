import { configure } from "@testing-library/react";

// The component tests wait on real servers on loopback ports (`findBy…`, `waitFor`). Testing
// Library gives up after 1 s by default, which a loaded two-core runner can outlast; a wait
// that never ends still fails, at the test's own timeout.
configure({ asyncUtilTimeout: 5_000 });

/** Writes src/wire-json-schemas.generated.ts: `npm run generate:wire-schemas`. */
import { writeFileSync } from "node:fs";
import { renderWireJsonSchemas } from "./wire-json-schemas.js";

writeFileSync(new URL("../src/wire-json-schemas.generated.ts", import.meta.url), renderWireJsonSchemas());

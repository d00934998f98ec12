// A vitest setup file (see ../vitest.config.ts): each test file's process records the
// transitions it takes when the coverage run names a log directory.
import { TRANSITION_LOG_ENV, recordTransitionsTo } from "./transition-log.ts";

const dir = process.env[TRANSITION_LOG_ENV];
if (dir !== undefined && dir !== "") recordTransitionsTo(dir);

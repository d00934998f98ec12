export { runJobsDemo } from "./demo/jobs-demo.ts";

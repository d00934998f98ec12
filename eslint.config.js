// Type-aware lint: floating promises are how double execution hides in Node, so they are errors.
import tseslint from "typescript-eslint";

export default tseslint.config(
  // packaging/consumer is a project outside the workspace, type-checked by its own tsconfig in the consumer test.
  { ignores: ["**/node_modules/**", "**/dist/**", "**/coverage/**", "packaging/consumer/**", ".stryker-tmp/**", "reports/**"] },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
);

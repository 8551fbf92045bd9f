// Runs every ```ts snippet of the README, so the documented code stays true.
import { describeReadmeSnippets } from '../../../../tests/support/readme-block.js';

describeReadmeSnippets({
  readme: new URL('../README.md', import.meta.url),
  dir: new URL('.', import.meta.url),
  atLeast: 2,
});

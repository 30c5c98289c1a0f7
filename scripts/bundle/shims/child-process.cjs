// Stands in for node:child_process inside commander, which loads it at start-up only to run
// executable subcommands, a feature hogctl doesn't use. Loading it (and node:net, node:dgram
// with it) cost every command a few milliseconds; now it loads if it is ever called.
module.exports = {
  get spawn() {
    return require('node:child_process').spawn;
  },
};

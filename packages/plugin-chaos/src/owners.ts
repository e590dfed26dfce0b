/**
 * The default `authors.bind` answer: CoreDNS answers with the GitHub handles of its OWNERS files
 * (`plugin/chaos/zowners.go`, generated); Foghorn with its maintainers. Kept sorted, as there.
 */
export const owners: readonly string[] = ['Foghorn maintainers'];
